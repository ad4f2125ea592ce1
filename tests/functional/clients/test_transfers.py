"""Volume transfers through real clients against the four daemons: python-cinderclient (the
library and the `cinder` CLI) and openstacksdk. Each test offers a volume in a project of its
own and accepts it in a second one; the volume, its owner and its quota usage move.

noauth as the other client tests use it (`user:project` tokens, every caller an admin).

NOTE(osc): `openstack volume transfer request *` goes through openstacksdk, whose Transfer
resource asks the endpoint's version document which microversions it supports, without a
token; under noauth Cinder (and cinderlike) answer that with an empty 204, so the OSC commands
need keystone auth and are not driven here.
"""

import pathlib
import re
import shutil
import subprocess
import sys
import uuid

import openstack
import pytest
from cinderclient import client as cinder_client
from cinderclient import exceptions
from cinderclient.contrib import noauth
from keystoneauth1 import session, token_endpoint
from openstack import exceptions as sdk_exceptions

from tests.functional.clients.helpers import settle
from tests.functional.e2e.stack import get_json

pytestmark = [pytest.mark.rabbit, pytest.mark.postgresql]

CINDER = shutil.which('cinder', path=str(pathlib.Path(sys.executable).parent))


@pytest.fixture
def projects():
    """(donor, taker): fresh projects, so the usage each test sees is its own."""
    tag = uuid.uuid4().hex[:8]
    return f'donor-{tag}', f'taker-{tag}'


def _usage(stack, project) -> dict[str, int]:
    status, body = get_json(f'http://127.0.0.1:{stack.api_port}/v3/{project}/os-quota-sets/'
                            f'{project}?usage=true', token=f'admin:{project}')
    assert status == 200
    return {k: v['in_use'] for k, v in body['quota_set'].items()
            if k in ('volumes', 'gigabytes') and isinstance(v, dict)}


def _owner(stack, project, volume_id) -> tuple[str, str, str]:
    status, body = get_json(f'http://127.0.0.1:{stack.api_port}/v3/{project}/volumes/'
                            f'{volume_id}', token=f'admin:{project}')
    assert status == 200
    volume = body['volume']
    return volume['status'], volume['os-vol-tenant-attr:tenant_id'], volume['user_id']


def _cinder(stack, project, version='3.71'):
    auth = noauth.CinderNoAuthPlugin(f'user-{project}', project,
                                     endpoint=f'http://127.0.0.1:{stack.api_port}/v3')
    return cinder_client.Client(version, session=session.Session(auth=auth))


def _available(fetch, volume_id):
    return settle(fetch, until=lambda v: v.status == 'available',
                  what=f'volume {volume_id} to be available')


@pytest.mark.parametrize('version', ['3.0', '3.71'])
def test_cinderclient_transfer_accepted_in_another_project(stack, projects, version):
    donor, taker = projects
    mine, theirs = _cinder(stack, donor, version), _cinder(stack, taker, version)
    volume = mine.volumes.create(2)
    _available(lambda: mine.volumes.get(volume.id), volume.id)
    assert _usage(stack, donor) == {'volumes': 1, 'gigabytes': 2}

    transfer = mine.transfers.create(volume.id, name='to-taker')
    assert re.fullmatch('[0-9a-f]{16}', transfer.auth_key)
    assert mine.volumes.get(volume.id).status == 'awaiting-transfer'
    with pytest.raises(exceptions.BadRequest):
        mine.volumes.delete(volume)
    assert [t.id for t in mine.transfers.list()] == [transfer.id]
    assert mine.transfers.get(transfer.id).name == 'to-taker'
    with pytest.raises(exceptions.BadRequest) as wrong:
        theirs.transfers.accept(transfer.id, '0' * 16)
    assert 'Invalid auth key' in str(wrong.value)

    accepted = theirs.transfers.accept(transfer.id, transfer.auth_key)
    assert (accepted.id, accepted.volume_id) == (transfer.id, volume.id)
    assert _owner(stack, taker, volume.id) == ('available', taker, f'user-{taker}')
    assert _usage(stack, taker) == {'volumes': 1, 'gigabytes': 2}
    assert _usage(stack, donor) == {'volumes': 0, 'gigabytes': 0}
    with pytest.raises(exceptions.NotFound):
        mine.transfers.get(transfer.id)
    theirs.volumes.delete(volume.id)


def test_cinderclient_transfer_delete_gives_the_volume_back(stack, projects):
    donor, _taker = projects
    mine = _cinder(stack, donor)
    volume = mine.volumes.create(1)
    _available(lambda: mine.volumes.get(volume.id), volume.id)
    transfer = mine.transfers.create(volume.id, no_snapshots=True)
    assert mine.transfers.get(transfer.id).no_snapshots is True
    mine.transfers.delete(transfer.id)
    assert mine.volumes.get(volume.id).status == 'available'
    assert mine.transfers.list() == []
    mine.volumes.delete(volume)


def _table(stdout: str) -> dict[str, str]:
    """A `cinder` Property/Value table as a dict."""
    rows = [line.split('|')[1:-1] for line in stdout.splitlines() if line.startswith('|')]
    return {key.strip(): value.strip() for key, value in rows[1:]}


def _ids(stdout: str) -> list[str]:
    rows = [line.split('|')[1:-1] for line in stdout.splitlines() if line.startswith('|')]
    return [row[0].strip() for row in rows[1:]]


@pytest.fixture
def cli(stack):
    # python-cinderclient is in the test extra: missing means a broken install, not a skip.
    assert CINDER is not None, 'cinder CLI not found: pip install -e .[test]'

    def run(project, *args, check=True):
        command = [CINDER, '--os-auth-type', 'noauth', '--os-user-id', f'user-{project}',
                   '--os-project-id', project, '--os-volume-api-version', '3.71',
                   '--os-endpoint', f'http://127.0.0.1:{stack.api_port}/v3', *args]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120)
        if check:
            assert done.returncode == 0, f'{args}: {done.stderr}'
        return done
    return run


def test_cinder_cli_transfer_create_list_show_accept_delete(stack, projects, cli):
    donor, taker = projects
    volume_id = _table(cli(donor, 'create', '--name', 'moving', '1').stdout)['id']
    settle(lambda: _owner(stack, donor, volume_id), until=lambda o: o[0] == 'available',
           what=f'volume {volume_id} to be available')

    created = _table(cli(donor, 'transfer-create', '--name', 'by-cli', volume_id).stdout)
    assert (created['volume_id'], created['name'], created['accepted']) == (
        volume_id, 'by-cli', 'False')
    assert created['source_project_id'] == donor and len(created['auth_key']) == 16
    assert _ids(cli(donor, 'transfer-list').stdout) == [created['id']]
    shown = _table(cli(donor, 'transfer-show', created['id']).stdout)
    assert 'auth_key' not in shown and shown['volume_id'] == volume_id
    refused = cli(taker, 'transfer-accept', created['id'], 'not-the-key', check=False)
    assert refused.returncode != 0 and 'Invalid auth key' in refused.stderr

    accepted = _table(cli(taker, 'transfer-accept', created['id'],
                          created['auth_key']).stdout)
    assert accepted['volume_id'] == volume_id
    assert _owner(stack, taker, volume_id) == ('available', taker, f'user-{taker}')
    assert _usage(stack, taker) == {'volumes': 1, 'gigabytes': 1}
    assert _usage(stack, donor) == {'volumes': 0, 'gigabytes': 0}

    # A second offer, withdrawn: transfer-delete gives the volume back to its owner.
    again = _table(cli(taker, 'transfer-create', volume_id).stdout)
    cli(taker, 'transfer-delete', again['id'])
    assert _owner(stack, taker, volume_id)[0] == 'available'
    assert _ids(cli(taker, 'transfer-list').stdout) == []
    cli(taker, 'delete', volume_id)


def _sdk(stack, project):
    """openstacksdk as test_openstacksdk.py connects it (the token on discovery too)."""
    root = f'http://127.0.0.1:{stack.api_port}/'
    token = f'user-{project}:{project}'
    sess = session.Session(auth=token_endpoint.Token(root, token),
                           additional_headers={'X-Auth-Token': token})
    return openstack.connection.Connection(
        session=sess, block_storage_endpoint_override=root,
        block_storage_api_version='3').block_storage


def test_openstacksdk_transfer_accepted_in_another_project(stack, projects):
    donor, taker = projects
    mine, theirs = _sdk(stack, donor), _sdk(stack, taker)
    volume = mine.create_volume(size=1, name='sdk-moving')
    _available(lambda: mine.get_volume(volume.id), volume.id)

    transfer = mine.create_transfer(volume_id=volume.id, name='by-sdk')
    assert re.fullmatch('[0-9a-f]{16}', transfer.auth_key)
    assert transfer.no_snapshots is False
    assert [t.id for t in mine.transfers()] == [transfer.id]
    assert mine.get_transfer(transfer.id).volume_id == volume.id
    with pytest.raises(sdk_exceptions.BadRequestException):
        theirs.accept_transfer(transfer.id, 'f' * 16)

    accepted = theirs.accept_transfer(transfer.id, transfer.auth_key)
    assert accepted.volume_id == volume.id
    assert _owner(stack, taker, volume.id) == ('available', taker, f'user-{taker}')
    assert _usage(stack, taker) == {'volumes': 1, 'gigabytes': 1}
    assert _usage(stack, donor) == {'volumes': 0, 'gigabytes': 0}
    with pytest.raises(sdk_exceptions.NotFoundException):
        mine.get_transfer(transfer.id)

    withdrawn = theirs.create_transfer(volume_id=volume.id)
    theirs.delete_transfer(withdrawn, ignore_missing=False)
    assert theirs.get_volume(volume.id).status == 'available'
    theirs.delete_volume(volume)
