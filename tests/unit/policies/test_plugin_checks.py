"""policies/plugin_checks.py: oslo.policy's `http:` check is loaded only when a rule names it,
and then asks its server as before."""

import http.server
import subprocess
import sys
import threading

import pytest
from oslo_policy import _checks, policy

from cinderlike import context, exception
from cinderlike.policies import enforcer as enforcer_module

READER = context.RequestContext(user_id='u', project_id='p', roles=['reader'])


@pytest.fixture
def answering():
    """A policy server answering every POST with the body its `answer` list names; the
    paths it was asked."""
    asked, answer = [], ['True']

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            self.rfile.read(int(self.headers['Content-Length']))
            asked.append(self.path)
            body = answer[0].encode()
            self.send_response(200)
            self.send_header('Content-Length', str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1], asked, answer
    server.shutdown()
    server.server_close()


def test_a_policy_files_http_rule_asks_its_server(conf, tmp_path, answering):
    port, asked, answer = answering
    path = tmp_path / 'policy.yaml'
    path.write_text(f'"volume:get": "http://127.0.0.1:{port}/check"\n')
    policy.Enforcer(conf)  # registers [oslo_policy] on this conf
    conf.set_override('policy_file', str(path), group='oslo_policy')
    enforcer = enforcer_module.Enforcer(conf)
    assert enforcer.allowed(READER, 'volume:get')
    assert type(enforcer._enforcer.rules['volume:get']).__name__ == 'HttpCheck'
    answer[0] = 'False'
    with pytest.raises(exception.PolicyNotAuthorized):
        enforcer.authorize(READER, 'volume:get')
    assert asked == ['/check', '/check']


def test_every_installed_plugin_is_named_to_the_parser():
    assert {'http', 'https'} <= set(_checks.get_extensions())


def test_the_api_and_its_rules_do_not_import_the_http_checks():
    probe = (
        'import sys\n'
        'from cinderlike import conf as cl_conf\n'
        'from cinderlike import context\n'
        'from cinderlike.api import app  # noqa: F401\n'
        'from cinderlike.policies import enforcer\n'
        'conf = cl_conf.parse([])  # as the daemon: no [nova], whose loading imports requests\n'
        'enforcer.Enforcer(conf).authorize(\n'
        '    context.RequestContext(user_id="u", project_id="p", roles=["admin"]),\n'
        '    "volume:create")\n'
        'print(sorted(m for m in ("requests", "oslo_policy._external") if m in sys.modules))\n')
    out = subprocess.run([sys.executable, '-c', probe], capture_output=True, text=True,
                         check=True, timeout=120)
    assert out.stdout.strip() == '[]'
