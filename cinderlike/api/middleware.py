"""cinderlike-api: falcon middleware run before every v3 responder, in Cinder's pipeline order.

Body size limit, then identity (noauth or the headers keystonemiddleware set) into a
RequestContext, then the request log, OpenStack-API-Version negotiation and the URL's
project check.
"""

import re
import urllib.parse

import falcon
from oslo_log import log as logging
from oslo_serialization import jsonutils
from oslo_utils import strutils

from cinderlike import context, exception
from cinderlike.api import faults, validation
from cinderlike.api import microversions as mv

LOG = logging.getLogger(__name__)

VERSION_HEADER = 'OpenStack-API-Version'
SERVICE_TYPE = 'volume'


def is_v3(path: str) -> bool:
    """True for /v3 and everything under it: the paths behind authentication."""
    return path == '/v3' or path.startswith('/v3/')


class RequestBody:
    """The body, read once: 413 overLimit when declared larger than
    `osapi_max_request_body_size` (before authentication, as Cinder's sizelimit filter),
    then, for a routed request, parsed as Cinder's wsgi.Resource does (validation.read_body)
    into `req.context.body`.
    """

    # NOTE(drain): a server that answers and closes while the client is still sending makes
    # the client's send fail (EPIPE, reset) before it reads the 413; a body up to this size is
    # read and dropped first, so the client gets the answer. A larger one is not read.
    DRAIN_LIMIT = 16 * 2 ** 20

    def __init__(self, limit: int):
        self.limit = limit

    def process_request(self, req: falcon.Request, resp: falcon.Response) -> None:
        req.context.body = validation.ABSENT
        if req.content_length is not None and req.content_length > self.limit:
            if req.content_length <= self.DRAIN_LIMIT:
                while req.bounded_stream.read(2 ** 16):
                    pass
            raise exception.RequestTooLarge()

    def process_resource(self, req: falcon.Request, resp: falcon.Response, resource,
                         params: dict) -> None:
        req.context.body = validation.read_body(req, limit=self.limit)


class NoAuth:
    """auth_strategy=noauth, exactly as Cinder: a `user:project` token makes an admin."""

    def process_request(self, req: falcon.Request, resp: falcon.Response) -> None:
        if not is_v3(req.path):
            return
        token = req.get_header('X-Auth-Token')
        if token is None:
            user_id = req.get_header('X-Auth-User', default='admin')
            project_id = req.get_header('X-Auth-Project-Id', default='admin')
            # NOTE(204): Cinder also labels this empty answer text/plain; a 204 carries
            # no Content-Type here, as WSGI servers and validators expect.
            resp.status = falcon.HTTP_204
            resp.set_header('X-Auth-Token', f'{user_id}:{project_id}')
            resp.set_header('X-Server-Management-Url', management_url(req))
            resp.complete = True
            return
        user_id, _sep, project_id = token.partition(':')
        roles = [r.strip() for r in (req.get_header('X-Roles') or '').split(',') if r.strip()]
        if 'admin' not in roles:
            roles.append('admin')
        req.context.ctx = _context_from(req, user_id=user_id, project_id=project_id or user_id,
                                        is_admin=True, roles=roles)


class KeystoneContext:
    """auth_strategy=keystone: the context from the headers auth_token has validated."""

    def process_request(self, req: falcon.Request, resp: falcon.Response) -> None:
        if not is_v3(req.path):
            return
        ctx = _context_from(req, project_name=req.get_header('X-Tenant-Name'))
        if ctx.user_id is None:
            LOG.debug('Neither X_USER_ID nor X_USER found in request')
            raise falcon.HTTPUnauthorized(description=faults.default_message(401))
        req.context.ctx = ctx


def quoted_url(req: falcon.Request) -> str:
    """The request's URL with its path quoted again, as webob's req.url.

    NOTE(header): falcon decodes the path, so `%0d%0a` or `%00` would reach a header as CR,
    LF or NUL (a response splitting the server refuses) or start a forged log line.
    """
    path = urllib.parse.quote(req.path, safe="/:@&+$,;=!~*'()")
    query = f'?{req.query_string}' if req.query_string else ''
    return f'{req.prefix}{path}{query}'


def management_url(req: falcon.Request) -> str:
    """noauth's X-Server-Management-Url."""
    return quoted_url(req).rstrip('/')


def _context_from(req: falcon.Request, **kwargs) -> context.RequestContext:
    """A RequestContext from the environ (request id, identity headers) plus *kwargs*."""
    catalog = req.get_header('X-Service-Catalog')
    if catalog is not None:
        try:
            catalog = jsonutils.loads(catalog)
        except ValueError:
            raise falcon.HTTPInternalServerError(
                description='Invalid service catalog json.') from None
    ctx = context.RequestContext.from_environ(req.env, **kwargs)
    ctx.service_catalog = catalog
    return ctx


def parse_version_header(value: str | None) -> mv.APIVersion:
    """The microversion a request asks for, read as Cinder does (`volume` and `latest` in
    lower case, the first `volume` entry wins).

    :raises HTTPBadRequest: no `volume X.Y` entry (Cinder's VersionNotFoundForAPIMethod,
        its plain 400); InvalidAPIVersionString: malformed;
        InvalidGlobalAPIVersion: outside [MIN_VERSION, MAX_VERSION].
    """
    if value is None:
        return mv.MIN_VERSION
    entries = [entry.split() for entry in value.split(',')]
    wanted = next((entry for entry in entries if SERVICE_TYPE in entry[:1]), None)
    if wanted is None:
        raise falcon.HTTPBadRequest()
    if len(wanted) != 2:
        raise exception.InvalidAPIVersionString(version=' '.join(wanted[1:]))
    if wanted[1] == 'latest':
        return mv.MAX_VERSION
    version = mv.APIVersion.parse(wanted[1])
    if not mv.MIN_VERSION <= version <= mv.MAX_VERSION:
        exc = exception.InvalidGlobalAPIVersion(
            req_ver=wanted[1], min_ver=mv.MIN_VERSION, max_ver=mv.MAX_VERSION)
        # NOTE(echo): Cinder has already taken the version when it checks the range,
        # so its 406 answer echoes the version asked for.
        exc.api_version = version
        raise exc
    return version


class VersionNegotiation:
    """`OpenStack-API-Version: volume X.Y` in, echoed with Vary on every v3 answer."""

    def process_request(self, req: falcon.Request, resp: falcon.Response) -> None:
        # NOTE(root): `GET /` is a Cinder wsgi.Resource too: it reads the header.
        if not (is_v3(req.path) or req.path == '/'):
            return
        try:
            req.context.api_version = parse_version_header(req.get_header(VERSION_HEADER))
        except exception.InvalidGlobalAPIVersion as exc:
            req.context.api_version = exc.api_version
            raise

    def process_response(self, req: falcon.Request, resp: falcon.Response, resource,
                         req_succeeded: bool) -> None:
        version = getattr(req.context, 'api_version', None)
        if version is not None and is_v3(req.path):
            resp.set_header(VERSION_HEADER, f'{SERVICE_TYPE} {version}')
            resp.append_header('Vary', VERSION_HEADER)


class QueryParams:
    """A query parameter given twice counts once, with its last value.

    NOTE(repeated): Cinder reads `req.params` (webob's MultiDict), whose item lookup and
    dict() take the last value; falcon would hand a list to every `int()` and filter.
    """

    def process_request(self, req: falcon.Request, resp: falcon.Response) -> None:
        for key, value in req.params.items():
            if isinstance(value, list):
                req.params[key] = value[-1]


class ProjectCheck:
    """A `{project_id}` in the URL must match `project_id_regex` (else, as Cinder's mapper,
    there is no such route: 404) and be the caller's project (400 as Cinder)."""

    def __init__(self, project_id_regex: str):
        self._pattern = re.compile(project_id_regex)

    def process_resource(self, req: falcon.Request, resp: falcon.Response, resource,
                         params: dict) -> None:
        project_id = params.pop('project_id', None)
        if project_id is not None and not self._pattern.fullmatch(project_id):
            raise falcon.HTTPNotFound()
        ctx = getattr(req.context, 'ctx', None)
        if project_id and ctx is not None and project_id != ctx.project_id:
            raise exception.MalformedRequestUrl()


class RequestLog:
    """Cinder's two INFO lines per request: `GET <url>` and `<url> returned with HTTP <status>`.

    Logged once the identity is known, so the lines carry the request's context; the URL is
    masked as oslo.utils masks passwords and tokens (a query string may hold one).
    """

    def process_request(self, req: falcon.Request, resp: falcon.Response) -> None:
        LOG.info('%(method)s %(url)s', {'method': req.method, 'url': _masked(req)})

    def process_response(self, req: falcon.Request, resp: falcon.Response, resource,
                         req_succeeded: bool) -> None:
        LOG.info('%(url)s returned with HTTP %(status)s',
                 {'url': _masked(req), 'status': resp.status_code})


def _masked(req: falcon.Request) -> str:
    """The URL as logged: quoted, passwords and tokens masked."""
    return strutils.mask_password(quoted_url(req))
