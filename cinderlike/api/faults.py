"""cinderlike-api: the only place error responses are built, in Cinder's fault format.

`{"<faultName>": {"message": "...", "code": N}}`, mapped as Cinder's wsgi.Fault and
FaultWrapper do: the messages of Invalid/NotFound/NotAuthorized reach the caller as they
are, other safe errors as "<ExceptionClass>: <message>", unsafe ones never leak.
"""

import json
import sys

import falcon
import sqlalchemy as sa
from oslo_log import log as logging

from cinderlike import exception, rpc

LOG = logging.getLogger(__name__)

_FAULT_NAMES = {
    400: 'badRequest',
    401: 'unauthorized',
    403: 'forbidden',
    404: 'itemNotFound',
    405: 'badMethod',
    409: 'conflictingRequest',
    413: 'overLimit',
    415: 'badMediaType',
    501: 'notImplemented',
    503: 'serviceUnavailable',
}

DATA_ERROR = 'Invalid input received: a value is out of range or too long for its field.'
DATABASE_DOWN = 'Service is unavailable at this time: the database cannot be reached.'
BROKER_DOWN = 'Service is unavailable at this time: the message broker cannot be reached.'

# NOTE(outage): what a database that is down or cut off raises (refused, reset, the pool's
# checkout timeout); a deadlock is an OperationalError too, and a retry cures it as well.
DATABASE_UNREACHABLE = (sa.exc.OperationalError, sa.exc.InterfaceError,
                        sa.exc.DisconnectionError, sa.exc.TimeoutError)

# Cinder's handlers pass these families' messages through untouched.
_PLAIN_MESSAGE = (exception.Invalid, exception.NotFound, exception.NotAuthorized,
                  exception.InvalidGlobalAPIVersion, exception.RequestTooLarge,
                  exception.TemporarilyUnavailable)


def body(code: int, message: str) -> dict:
    """The fault document for HTTP status *code*."""
    return {_FAULT_NAMES.get(code, 'computeFault'): {'message': message, 'code': code}}


_MOVED = 'The resource has been moved to'
_MALFORMED = ('The server could not comply with the request since it is either malformed or '
              'otherwise incorrect.')
_ERRED = ('The server has either erred or is incapable of performing the requested '
          'operation.')

# NOTE(webob): the `explanation` of each of webob.exc's status_map classes, which Cinder's
# faults show when they carry no message of their own; kept here, word for word, so the API
# does not import webob for them (tests/unit/api/test_faults.py compares the two).
_EXPLANATIONS = {
    200: '', 201: '', 202: 'The request is accepted for processing.', 203: '', 204: '',
    205: '', 206: '',
    300: _MOVED, 301: _MOVED, 302: 'The resource was found at', 303: _MOVED, 304: '',
    305: 'The resource must be accessed through a proxy located at', 307: _MOVED,
    308: _MOVED,
    400: _MALFORMED,
    401: ('This server could not verify that you are authorized to access the document you '
          'requested. Either you supplied the wrong credentials (e.g., bad password), or your '
          'browser does not understand how to supply the credentials required.'),
    402: 'Access was denied for financial reasons.',
    403: 'Access was denied to this resource.',
    404: 'The resource could not be found.',
    405: _MALFORMED,
    406: _MALFORMED,
    407: 'Authentication with a local proxy is needed.',
    408: 'The server has waited too long for the request to be sent by the client.',
    409: 'There was a conflict when trying to complete your request.',
    410: 'This resource is no longer available. No forwarding address is given.',
    411: 'Content-Length header required.',
    412: 'Request precondition failed.',
    413: 'The body of your request was too large for this server.',
    414: 'The request URI was too long for this server.',
    415: _MALFORMED,
    416: 'The Range requested is not available.',
    417: 'Expectation failed.',
    422: 'Unable to process the contained instructions',
    423: 'The resource is locked',
    # (sic: webob's spelling)
    424: ('The method could not be performed because the requested action dependended on '
          'another action and that action failed'),
    428: 'This request is required to be conditional',
    429: 'The client has sent too many requests in a given amount of time',
    431: 'The request header fields were too large',
    451: 'The resource is not available due to legal reasons.',
    500: _ERRED,
    501: _ERRED,
    502: 'Bad gateway.',
    503: 'The server is currently unavailable. Please try again at a later time.',
    504: 'The gateway has timed out.',
    505: 'The HTTP version is not supported.',
    507: 'There was not enough space to save the resource',
    511: 'Network authentication is required',
}


def default_message(code: int) -> str:
    """webob's stock explanation for *code* (the 500 one for a code webob has no class
    for): what Cinder shows when it says nothing else."""
    return _EXPLANATIONS.get(code, _ERRED)


def from_exception(ex: Exception, method: str = '') -> tuple[int, str]:
    """(status, message) Cinder answers for *ex*."""
    if isinstance(ex, exception.CinderlikeException):
        if isinstance(ex, _PLAIN_MESSAGE):
            return ex.code, ex.msg
        if ex.safe:
            return ex.code, f'{type(ex).__name__}: {ex.msg}'
        LOG.error('Caught error: %s', ex)
        return ex.code, default_message(ex.code)
    if isinstance(ex, sa.exc.DataError):
        # NOTE(data_error): MariaDB refuses an out-of-range number (1264) or an over-long
        # string (1406) the API let through; the transaction is gone, the input is at fault.
        LOG.warning('The database refused a value: %s', ex.orig)
        return 400, DATA_ERROR
    if isinstance(ex, DATABASE_UNREACHABLE):
        LOG.error('Database unreachable answering %s: %s', method, getattr(ex, 'orig', None) or ex)
        return 503, DATABASE_DOWN
    if isinstance(ex, rpc.SEND_FAILURES):
        LOG.error('Message broker unreachable answering %s: %s', method, ex)
        return 503, BROKER_DOWN
    if isinstance(ex, falcon.HTTPMethodNotAllowed):
        # NOTE(405): Cinder's routes mapper matches on the method too: an unknown one is
        # no route, a 404.
        return 404, default_message(404)
    if isinstance(ex, falcon.HTTPError):
        code = ex.status_code
        return code, ex.description or default_message(code)
    LOG.exception('Unexpected error answering %s', method)
    return 500, default_message(500)


def render(resp: falcon.Response, code: int, message: str) -> None:
    """Make *resp* the fault response for *code*."""
    resp.status = code
    resp.content_type = falcon.MEDIA_JSON
    resp.media = body(code, message)


def handle(req: falcon.Request, resp: falcon.Response, ex: Exception, params) -> None:
    """falcon error handler for every exception, falcon's own HTTPError included."""
    code, message = from_exception(ex, req.method)
    headers = None if code == 404 else getattr(ex, 'headers', None)
    if headers:
        resp.set_headers(headers)
    render(resp, code, message)
    # NOTE(retry): as Cinder's Fault, a 413/429 with Retry-After repeats it in the body.
    retry = (headers or {}).get('Retry-After')
    if code in (413, 429) and retry:
        resp.media[_FAULT_NAMES.get(code, 'computeFault')]['retryAfter'] = retry


def guard(app):
    """WSGI filter: what escapes the filters around falcon is Cinder's computeFault 500.

    NOTE(500): falcon's handler sees only falcon's own stack; an error in an outer filter
    (auth_token) would otherwise reach the server, which answers with an empty body.
    """
    def call(env, start_response):
        try:
            return app(env, start_response)
        except Exception:
            LOG.exception('Unexpected error answering %s', env.get('REQUEST_METHOD'))
            payload = json.dumps(body(500, default_message(500))).encode()
            start_response('500 Internal Server Error',
                           [('Content-Type', falcon.MEDIA_JSON),
                            ('Content-Length', str(len(payload)))], sys.exc_info())
            # NOTE(head): the answer to a HEAD names the body a GET would get, and sends none.
            return [] if env.get('REQUEST_METHOD') == 'HEAD' else [payload]
    return call
