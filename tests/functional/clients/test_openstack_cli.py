"""The `openstack` CLI (python-openstackclient) against the four daemons, as an operator
would type it: volumes and volume types with their properties.

noauth through OSC's `admin_token` auth type: the token is `user:project` and the endpoint
the project's /v3 URL, which the volume commands use as it is.

NOTE(noauth): `volume delete` goes through openstacksdk, whose version discovery asks /v3/
without a token; Cinder's noauth answers that with an empty 204 (as cinderlike does), so the
CLI cannot delete under noauth and the test deletes through the REST API instead.
"""

import json
import pathlib
import shutil
import subprocess
import sys

import pytest

from tests.functional.clients.helpers import settle
from tests.functional.e2e.stack import PROJECT

pytestmark = [pytest.mark.rabbit, pytest.mark.postgresql]

OPENSTACK = shutil.which('openstack', path=str(pathlib.Path(sys.executable).parent))


@pytest.fixture(scope='module')
def cli(stack):
    # python-openstackclient is in the test extra: missing means a broken install, not a skip.
    assert OPENSTACK is not None, 'openstack CLI not found: pip install -e .[test]'

    def run(*args, check=True):
        command = [OPENSTACK, '--os-auth-type', 'admin_token', '--os-token', f'admin:{PROJECT}',
                   '--os-endpoint', f'http://127.0.0.1:{stack.api_port}/v3/{PROJECT}', *args]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120)
        if check:
            assert done.returncode == 0, f'{args}: {done.stderr}'
        return done
    return run


def _json(cli, *args):
    return json.loads(cli(*args, '-f', 'json').stdout)


def test_volume_type_with_properties(cli, name):
    created = _json(cli, 'volume', 'type', 'create', '--description', 'gold',
                    '--property', 'volume_backend_name=b1', '--property', 'tier=gold', name)
    assert created['name'] == name
    cli('volume', 'type', 'unset', '--property', 'tier', name)
    cli('volume', 'type', 'set', '--description', 'silver', name)
    shown = _json(cli, 'volume', 'type', 'show', name)
    assert shown['description'] == 'silver'
    assert shown['properties'] == {'volume_backend_name': 'b1'}
    assert name in [t['Name'] for t in _json(cli, 'volume', 'type', 'list')]
    cli('volume', 'type', 'delete', name)
    assert name not in [t['Name'] for t in _json(cli, 'volume', 'type', 'list')]


def test_volume_create_list_show_extend_delete(cli, stack, name):
    cli('volume', 'type', 'create', '--property', 'volume_backend_name=b2', name)
    created = _json(cli, 'volume', 'create', '--size', '1', '--type', name,
                    '--property', 'k=v', name)
    volume_id = created['id']

    def show():
        return _json(cli, 'volume', 'show', volume_id)
    shown = settle(show, until=lambda v: v['status'] == 'available',
                   what=f'volume {volume_id} to be available')
    assert (shown['name'], shown['size'], shown['type']) == (name, 1, name)
    assert shown['os-vol-host-attr:host'] == f'{stack.host}@b2#b2'
    listed = _json(cli, 'volume', 'list', '--name', name)
    assert [(v['ID'], v['Status'], v['Size']) for v in listed] == [(volume_id, 'available', 1)]

    cli('volume', 'set', '--size', '2', volume_id)
    settle(show, until=lambda v: v['status'] == 'available' and v['size'] == 2,
           what=f'volume {volume_id} to be extended')

    assert stack.request('DELETE', f'/v3/{PROJECT}/volumes/{volume_id}')[0] == 202
    settle(lambda: cli('volume', 'show', volume_id, check=False),
           until=lambda done: done.returncode != 0, what=f'volume {volume_id} to be deleted')
    gone = cli('volume', 'show', volume_id, check=False)
    assert f'No Volume found for {volume_id}' in gone.stderr
