"""cinderlike-api: GET /healthcheck at Cinder's path, answered as oslo.middleware's healthcheck
app answers it, with two checks of our own: the database answers and the message broker
accepts a connection.

Load balancers poll it without a token. 200 while every check passes, 503 otherwise (HEAD:
204 / 503); text, HTML or JSON as the Accept header asks, with `[healthcheck] detailed` the
reasons' details and the server's state.

NOTE(rss): oslo.middleware's app brings webob, jinja2 and, through its package, every other
middleware of it (bcrypt...), 3 MB and more in each API worker; this one is plain WSGI, its
behaviour held to oslo.middleware's by tests/unit/api/healthcheck/.
"""

import ipaddress
from typing import NamedTuple

from cinderlike import conf as cl_conf
from cinderlike import exception
from cinderlike.api.healthcheck import plugins, render
from cinderlike.api.healthcheck.checks import DatabaseCheck, MessagingCheck
from cinderlike.api.healthcheck.plugins import HealthcheckResult
from cinderlike.conf import healthcheck as healthcheck_conf

__all__ = ['PATH', 'Answer', 'Healthcheck', 'HealthcheckResult', 'at_path', 'serving']

PATH = '/healthcheck'

# oslo.middleware's plugins that refuse each other.
_EXCLUSIVE = {'disable_by_file', 'enable_by_files'}
# With `ignore_proxied_requests`, a request carrying one of these is not answered.
_PROXY_HEADERS = tuple(f'HTTP_X_{name}' for name in (
    'FORWARDED', 'FORWARDED_PROTO', 'FORWARDED_HOST', 'FORWARDED_FOR', 'FORWARDED_PREFIX'))
_STATUS = {200: '200 OK', 204: '204 No Content', 503: '503 Service Unavailable'}
_BODIES = {render.TEXT: render.text, render.HTML: render.html, render.JSON: render.json_body}


class Answer(NamedTuple):
    """A response: the status line, the headers and the body."""
    status: str
    headers: list[tuple[str, str]]
    body: bytes


class Healthcheck:
    """The `[healthcheck] backends`, then *checks*, asked at each request."""

    def __init__(self, conf, *, checks=()):
        """:raises HealthcheckConfigInvalid: for exclusive backends (oslo.middleware's
        ConfigInvalid); ValueError for an `allowed_source_ranges` item that is no network."""
        group = conf.healthcheck
        self._detailed = group.detailed
        self._source_ranges = [ipaddress.ip_network(item)
                               for item in group.allowed_source_ranges]
        self._ignore_proxied = group.ignore_proxied_requests
        if _EXCLUSIVE <= set(group.backends):
            raise exception.HealthcheckConfigInvalid()
        self._checks = [*plugins.load(conf, group.backends), *checks]

    def answer(self, environ) -> Answer | None:
        """The answer to the request *environ*, or None for a request it leaves to the
        application (from outside `allowed_source_ranges`, or proxied)."""
        if not self._answers(environ):
            return None
        results = [check.healthcheck(int(environ['SERVER_PORT']))
                   for check in self._checks if check]
        healthy = all(result.available for result in results)
        if environ['REQUEST_METHOD'] == 'HEAD':
            status, content_type, body = (204 if healthy else 503), render.TEXT, ''
        else:
            content_type = render.negotiate(environ.get('HTTP_ACCEPT'))
            status = 200 if healthy else 503
            body = _BODIES[content_type](results, self._detailed)
        payload = body.encode('utf-8')
        # NOTE(webob): the headers webob's Response(charset='UTF-8') gives: none for a 204,
        # the charset for text/* only; a HEAD answer has an empty body.
        headers = [] if status == 204 else [
            ('Content-Type', content_type if content_type == render.JSON
             else f'{content_type}; charset=UTF-8'),
            ('Content-Length', str(len(payload)))]
        return Answer(_STATUS[status], headers, payload)

    def _answers(self, environ) -> bool:
        if self._source_ranges:
            remote = environ.get('REMOTE_ADDR')
            if not remote:
                return False
            address = ipaddress.ip_address(remote)
            # NOTE(version): an IPv4 address is "in" some IPv6 networks (::/0) by its bits.
            if not any(network.version == address.version and address in network
                       for network in self._source_ranges):
                return False
        return not (self._ignore_proxied
                    and any(environ.get(header) for header in _PROXY_HEADERS))


def at_path(check: Healthcheck):
    """A WSGI filter: /healthcheck answered by *check*, everything else, and what *check*
    leaves, inward."""
    def wrap(app):
        def dispatch(env, start_response):
            if env.get('PATH_INFO', '').rstrip('/') == PATH:
                answer = check.answer(env)
                if answer is not None:
                    start_response(answer.status, answer.headers)
                    return [answer.body]
            return app(env, start_response)
        return dispatch
    return wrap


def serving(conf, *, db):
    """The API's /healthcheck filter: Cinder's `[healthcheck]` backends, then the database
    and broker checks."""
    cl_conf.register_on_demand(conf, healthcheck_conf)
    return at_path(Healthcheck(conf, checks=[DatabaseCheck(db), MessagingCheck(conf)]))
