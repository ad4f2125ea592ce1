"""Our /healthcheck beside oslo.middleware 8.2.0's Healthcheck app, built from the same conf:
both answer the same WSGI request, and the answers are compared."""

import io
import json
import re

import stevedore
from oslo_config import cfg
from oslo_middleware import healthcheck as oslo_healthcheck

from cinderlike.api import healthcheck
from cinderlike.conf import healthcheck as healthcheck_conf

INNER = (b'inner app', '404 Not Found', [('Content-Type', 'text/plain')])


def inner_app(env, start_response):
    """What the healthcheck leaves to the application answers this."""
    body, status, headers = INNER
    start_response(status, list(headers))
    return [body]


def new_conf(**healthcheck_options) -> cfg.ConfigOpts:
    conf = cfg.ConfigOpts()
    healthcheck_conf.register_opts(conf)
    conf([])
    for name, value in healthcheck_options.items():
        conf.set_override(name, value, group='healthcheck')
    return conf


class Fixed:
    """A check that answers *result*, appended to both apps' backends."""

    def __init__(self, available=True, reason='OK', details=None):
        self.result = healthcheck.HealthcheckResult(available, reason, details)

    def healthcheck(self, server_port):
        return self.result


def ours(conf, checks=()):
    """Our filter around inner_app, as serving() puts it around the API."""
    return healthcheck.at_path(healthcheck.Healthcheck(conf, checks=list(checks)))(inner_app)


def theirs(conf, checks=()):
    """oslo.middleware's app with inner_app behind it (Cinder's urlmap gives it none), the
    same extra checks appended to its stevedore backends."""
    app = oslo_healthcheck.Healthcheck(inner_app, conf)
    app._backends.extensions = [*app._backends.extensions, *(
        stevedore.extension.Extension(f'extra{n}', None, type(check), check)
        for n, check in enumerate(checks))]
    return app


def environ(method='GET', *, accept=None, port='8776', remote='127.0.0.1', **headers):
    """A fresh WSGI environ for /healthcheck; *headers* as environ keys (HTTP_X_FORWARDED)."""
    env = {'REQUEST_METHOD': method, 'SCRIPT_NAME': '', 'PATH_INFO': '/healthcheck',
           'QUERY_STRING': '', 'SERVER_NAME': 'localhost', 'SERVER_PORT': port,
           'SERVER_PROTOCOL': 'HTTP/1.1', 'wsgi.url_scheme': 'http',
           'wsgi.input': io.BytesIO(), 'wsgi.errors': io.StringIO(),
           'wsgi.version': (1, 0), 'wsgi.multithread': True, 'wsgi.multiprocess': False,
           'wsgi.run_once': False, **headers}
    if accept is not None:
        env['HTTP_ACCEPT'] = accept
    if remote is not None:
        env['REMOTE_ADDR'] = remote
    return env


def call(app, env) -> tuple[str, list, bytes]:
    """(status line, headers, body) of *app*'s answer to *env*."""
    answer = {}

    def start_response(status, headers, exc_info=None):
        answer.update(status=status, headers=list(headers))
    body = b''.join(app(env, start_response))
    return answer['status'], answer['headers'], body


def both(conf, checks=(), **request):
    """(ours, theirs) answers to the same request."""
    return (call(ours(conf, checks), environ(**request)),
            call(theirs(conf, checks), environ(**request)))


# NOTE(volatile): what changes from one answer to the next: the time, the garbage
# collector's counts and the threads' (greenthreads') stacks.
_VOLATILE_HTML = [
    (re.compile(r'(<B>Current time:</B><PRE>)[^<]*(</PRE>)'), r'\1NOW\2'),
    (re.compile(r'(<B>Counts:</B><PRE>)[^<]*(</PRE>)'), r'\1COUNTS\2'),
    (re.compile(r'<H2>\d+ (green)?thread\(s\) active:</H2>.*?</TABLE>', re.S),
     r'<H2>N \1thread(s) active:</H2>STACKS</TABLE>'),
]


def steady(answer, detailed: bool):
    """*answer* with its volatile parts replaced (detailed answers), Content-Length dropped
    there as it follows them."""
    status, headers, body = answer
    if not detailed or not body:
        return answer
    text = body.decode()
    if text.startswith('{'):
        document = json.loads(text)
        for key in ('now', 'threads', 'greenthreads'):
            assert isinstance(document.pop(key), (str, list))
        document['gc'].pop('counts')
        text = json.dumps(document, sort_keys=True)
    else:
        for pattern, replacement in _VOLATILE_HTML:
            text = pattern.sub(replacement, text)
    return status, [h for h in headers if h[0] != 'Content-Length'], text
