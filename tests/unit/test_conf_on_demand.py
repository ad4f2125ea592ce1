"""conf.parse: a daemon's groups read on demand ([healthcheck], [nova], [service_user]) are
left out of its conf and its imports, and read from its config file once their code runs
(each daemon started by its cmd in a process of its own: tests/unit/daemon_probe.py)."""

import json
import pathlib
import subprocess
import sys

import pytest

from cinderlike import conf as cl_conf
from cinderlike import service_auth
from cinderlike.api import healthcheck
from cinderlike.compute import nova
from cinderlike.conf import nova as nova_conf
from cinderlike.conf import opts
from tests.unit import daemon_probe

CONFIG = """
[healthcheck]
check_timeout = 7.5
[nova]
region_name = north
interface = internal
[service_user]
send_service_user_token = true
"""

DAEMON_CONFIG = """
[DEFAULT]
auth_strategy = noauth
transport_url = fake://
state_path = {state}
enabled_backends = b1
[database]
connection = sqlite:///{state}/cinderlike.sqlite
[b1]
volume_driver = fake
""" + CONFIG

# NOTE(rss): of what the other daemons never import, the API keeps oslo.policy's http check
# (requests) only; with noauth it loads no Keystone library, and its /healthcheck and request
# id are its own (no webob, no jinja2).
API_NOT_IMPORTED = tuple(name for name in daemon_probe.PROBED if name != 'requests')
ROOT = pathlib.Path(__file__).resolve().parents[2]


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


@pytest.mark.parametrize('daemon, not_imported, read', [
    ('api', API_NOT_IMPORTED, {'healthcheck.check_timeout': 7.5}),
    ('scheduler', daemon_probe.PROBED, {}),
    ('volume', daemon_probe.PROBED, {'nova.region_name': 'north', 'nova.interface': 'internal'}),
    ('backup', daemon_probe.PROBED, {'service_user.send_service_user_token': True}),
])
def test_a_daemon_started_by_its_cmd_imports_none_of_it_and_reads_the_file_where_used(
        daemon, not_imported, read, tmp_path):
    path = tmp_path / 'cinderlike.conf'
    path.write_text(DAEMON_CONFIG.format(state=tmp_path))
    out = subprocess.run([sys.executable, '-m', 'tests.unit.daemon_probe', daemon, str(path)],
                         capture_output=True, text=True, check=True, cwd=ROOT).stdout
    probe = json.loads(out.splitlines()[-1])

    assert not set(not_imported) & set(probe['imported'])
    assert probe['read'] == read
