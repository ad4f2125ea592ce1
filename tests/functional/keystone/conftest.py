"""One Keystone and one four-daemon stack with auth_strategy = keystone (RabbitMQ + PostgreSQL,
fake driver on backends b1 and b2) for every test here; clients log in through the catalog."""

import json
import signal
import subprocess
import uuid

import pytest

from tests.fixtures import keystone as keystone_fixture
from tests.functional.e2e.stack import wait_for
from tests.functional.keystone.helpers import cli_path, os_env

STARTUP = 90  # seconds for four Python daemons to import, connect, register and report


@pytest.fixture(scope='package')
def stack(tmp_path_factory, postgresql_server_url, rabbit_url):
    """The stack, configured for the Keystone started alongside (stack.keystone)."""
    with keystone_fixture.deployed_with_keystone(
            tmp_path_factory.mktemp('keystone'), server_url=postgresql_server_url,
            transport_url=rabbit_url, timeout=STARTUP) as stack:
        yield stack


@pytest.fixture(scope='package')
def keystone(stack):
    return stack.keystone


@pytest.fixture
def name():
    """A fresh name, so tests sharing the stack never meet."""
    return f'cl-{uuid.uuid4().hex[:8]}'


@pytest.fixture(scope='package')
def openstack_cli(keystone):
    """run(user, *args) -> stdout of `openstack *args` as *user* (JSON parsed with -f json)."""
    command = cli_path('openstack')

    def run(user, *args):
        done = subprocess.run([command, *args], env=os_env(keystone, user),
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, f'{args}: {done.stderr}'
        return json.loads(done.stdout) if args[-2:] == ('-f', 'json') else done.stdout
    return run


@pytest.fixture(scope='package')
def operator_config(stack):
    """The stack as an operator runs it: `debug = True` in every daemon (SIGHUP: oslo.log's
    mutable options; the API restarted) and `[oslo_policy] policy_file` at an empty
    policy.yaml: the path, for tests to write overrides into (and to empty again)."""
    policy_file = stack.workdir / 'policy.yaml'
    policy_file.write_text('{}\n')
    stack.update_config(debug=True)
    stack.update_config('oslo_policy', policy_file=policy_file)
    for name in ('scheduler', 'volume', 'backup'):
        stack.daemons[name].proc.send_signal(signal.SIGHUP)
    stack.daemons['api'].stop()
    stack.start('api')
    stack.wait_for_api(timeout=STARTUP)
    wanted = {f'{stack.host}@{backend}#{backend}' for backend in stack.backends}
    wait_for(lambda: wanted <= stack.pool_names(), timeout=STARTUP,
             what=f'the scheduler to know pools {sorted(wanted)} again')
    return policy_file
