"""conf.parse: a daemon's groups read on demand ([healthcheck], [nova], [service_user]) are
left out of its conf and its imports, and read from its config file once their code runs."""

import subprocess
import sys

import pytest

from cinderlike import conf as cl_conf
from cinderlike import service_auth
from cinderlike.api import healthcheck
from cinderlike.compute import nova
from cinderlike.conf import nova as nova_conf
from cinderlike.conf import opts

CONFIG = """
[healthcheck]
check_timeout = 7.5
[nova]
region_name = north
interface = internal
[service_user]
send_service_user_token = true
"""

HEAVY = ('webob', 'jinja2', 'requests', 'keystoneauth1', 'keystonemiddleware')


@pytest.fixture
def daemon_conf(tmp_path):
    path = tmp_path / 'cinderlike.conf'
    path.write_text(CONFIG)
    return cl_conf.parse([], default_config_files=[str(path)])


def test_a_daemon_conf_leaves_the_groups_read_on_demand_out(daemon_conf):
    for group in ('healthcheck', 'nova', 'service_user'):
        assert group not in daemon_conf


def test_each_group_is_read_from_the_config_file_where_it_is_used(daemon_conf, db):
    nova.API(daemon_conf)
    service_auth.ServiceToken(daemon_conf)
    healthcheck.serving(daemon_conf, db=db)

    assert (daemon_conf.nova.region_name, daemon_conf.nova.interface) == ('north', 'internal')
    assert daemon_conf.service_user.send_service_user_token is True
    assert daemon_conf.healthcheck.check_timeout == 7.5
    # registering again (another API client, another token) changes nothing
    assert cl_conf.register_on_demand(daemon_conf, nova_conf).region_name == 'north'


def test_the_sample_config_still_lists_every_group():
    groups = {group for group, _opts in opts.list_opts()}
    assert {'healthcheck', 'nova', 'service_user'} <= groups


@pytest.mark.parametrize('service', ['scheduler', 'volume', 'backup'])
def test_a_service_daemon_does_not_import_what_only_those_groups_need(service):
    code = (f'import sys\nimport cinderlike.cmd.{service}, cinderlike.{service}.manager\n'
            'from cinderlike import conf\nconf.parse([], default_config_files=[])\n'
            f'print(sorted(m for m in {HEAVY!r} if m in sys.modules))')
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == '[]'
