"""Attachments through the real clients against the four daemons (fake driver): the
python-cinderclient library (attachments 3.27/3.44/3.54 and the legacy volume actions) and
openstacksdk (attachments, reserve, attach, force-detach).

NOTE(osc): the `openstack volume attachment` commands go through openstacksdk, which
discovers the API version at the endpoint without sending the token; under noauth that
request gets Cinder's empty 204, so they cannot run against a noauth deployment (and
`create` also looks the server up in Nova). tests/functional/keystone/test_attachment_cli.py
runs them through Keystone, with a stand-in Nova in the catalog.
"""

import pathlib
import shutil
import subprocess
import sys

import pytest
from cinderclient import client as cinder_client
from cinderclient import exceptions
from cinderclient.contrib import noauth
from keystoneauth1 import session

from tests.functional.clients.helpers import settle
from tests.functional.clients.test_openstacksdk import _connect
from tests.functional.e2e.stack import PROJECT

pytestmark = [pytest.mark.rabbit, pytest.mark.postgresql]

CONNECTOR = {'host': 'compute-1', 'initiator': 'iqn.1993-08.org.debian:01:abc',
             'ip': '192.0.2.10', 'platform': 'x86_64', 'os_type': 'linux',
             'multipath': False, 'mountpoint': '/dev/vdb'}
INSTANCE = '6c7e5d8e-7a55-4a4e-9f0a-2a0f3b9d4c11'
OTHER_INSTANCE = '0b9f1f9e-3f2b-4c1e-8f43-4a4b2f7c9d22'


@pytest.fixture(scope='module')
def cinder(stack):
    auth = noauth.CinderNoAuthPlugin('admin', PROJECT,
                                     endpoint=f'http://127.0.0.1:{stack.api_port}/v3')
    return cinder_client.Client('3.71', session=session.Session(auth=auth))


def _status(cinder, volume_id, status):
    return settle(lambda: cinder.volumes.get(volume_id), until=lambda v: v.status == status,
                  what=f'volume {volume_id} {status}')


def _volume(cinder, name):
    return _status(cinder, cinder.volumes.create(1, name=name).id, 'available')


def test_cinderclient_attachment_create_update_complete_delete(cinder, name):
    volume = _volume(cinder, name)
    reserved = cinder.attachments.create(volume.id, None, instance_id=INSTANCE)
    assert (reserved['status'], reserved['instance']) == ('reserved', INSTANCE)
    assert cinder.volumes.get(volume.id).status == 'reserved'
    with pytest.raises(exceptions.BadRequest, match='to reserve'):
        cinder.attachments.create(volume.id, None, instance_id=OTHER_INSTANCE)

    updated = cinder.attachments.update(reserved['id'], CONNECTOR)
    assert updated.status == 'attaching'
    assert updated.connection_info['driver_volume_type'] == 'fake'
    assert updated.connection_info['attachment_id'] == reserved['id']
    cinder.attachments.complete(reserved['id'])
    shown = cinder.attachments.show(reserved['id'])
    assert (shown.status, shown.attach_mode) == ('attached', 'rw')
    volume = cinder.volumes.get(volume.id)
    assert (volume.status, volume.attachments[0]['attachment_id']) == ('in-use',
                                                                       reserved['id'])
    listed = cinder.attachments.list(search_opts={'volume_id': volume.id})
    assert [a.id for a in listed] == [reserved['id']]
    with pytest.raises(exceptions.BadRequest):
        cinder.volumes.delete(volume)

    cinder.attachments.delete(reserved['id'])
    assert cinder.volumes.get(volume.id).status == 'available'
    with pytest.raises(exceptions.NotFound):
        cinder.attachments.show(reserved['id'])
    cinder.volumes.delete(volume)


def test_cinderclient_attachment_with_connector_and_mode(cinder, name):
    volume = _volume(cinder, name)
    made = cinder.attachments.create(volume.id, CONNECTOR, instance_id=INSTANCE, mode='ro')
    assert made['status'] == 'attaching' and made['attach_mode'] == 'ro'
    assert made['connection_info']['access_mode'] == 'ro'
    with pytest.raises(exceptions.BadRequest, match='required information: host'):
        cinder.attachments.update(made['id'], {'ip': '192.0.2.1'})
    cinder.attachments.delete(made['id'])
    _status(cinder, volume.id, 'available')
    cinder.volumes.delete(volume)


def test_cinderclient_legacy_reserve_attach_detach(cinder, name):
    volume = _volume(cinder, name)
    cinder.volumes.reserve(volume)
    assert cinder.volumes.get(volume.id).status == 'attaching'
    info = cinder.volumes.initialize_connection(volume, CONNECTOR)
    assert info['driver_volume_type'] == 'fake' and info['data']['access_mode'] == 'rw'
    cinder.volumes.attach(volume, INSTANCE, '/dev/vdb')
    volume = cinder.volumes.get(volume.id)
    assert volume.status == 'in-use'
    attachment_id = volume.attachments[0]['attachment_id']
    # The volume service's refusal crosses RabbitMQ as itself (Cinder's 400 text).
    with pytest.raises(exceptions.BadRequest,
                       match=r'^Error attaching volume - InvalidVolume: Invalid volume: volume '
                             r'is already attached and multiple attachments are not enabled '
                             r'\(HTTP 400\)'):
        cinder.volumes.attach(volume, OTHER_INSTANCE, '/dev/vdc')
    cinder.volumes.begin_detaching(volume)
    assert cinder.volumes.get(volume.id).status == 'detaching'
    cinder.volumes.roll_detaching(volume)
    assert cinder.volumes.get(volume.id).status == 'in-use'
    cinder.volumes.terminate_connection(volume, CONNECTOR)
    cinder.volumes.detach(volume, attachment_id)
    assert cinder.volumes.get(volume.id).status == 'available'
    cinder.volumes.reserve(volume)
    cinder.volumes.unreserve(volume)
    assert cinder.volumes.get(volume.id).status == 'available'
    cinder.volumes.delete(volume)


def test_openstacksdk_legacy_attach_and_force_detach(stack, cinder, name):
    bs = _connect(stack)
    volume = _volume(cinder, name)
    bs.reserve_volume(volume.id)
    assert cinder.volumes.get(volume.id).status == 'attaching'
    bs.attach_volume(volume.id, '/mnt/x', host_name='glance-1')
    attachment_id = cinder.volumes.get(volume.id).attachments[0]['attachment_id']
    bs.detach_volume(volume.id, attachment_id, force=True, connector=CONNECTOR)
    assert cinder.volumes.get(volume.id).status == 'available'
    cinder.volumes.delete(volume)


def test_openstacksdk_attachments(stack, cinder, name):
    bs = _connect(stack)
    volume = _volume(cinder, name)
    made = bs.create_attachment(volume.id, instance=INSTANCE)
    assert made.status == 'reserved'
    made = bs.update_attachment(made, connector=CONNECTOR)
    assert made.connection_info['driver_volume_type'] == 'fake'
    bs.complete_attachment(made)
    assert bs.get_attachment(made.id).status == 'attached'
    assert made.id in [a.id for a in bs.attachments(volume_id=volume.id)]
    bs.delete_attachment(made)
    assert cinder.volumes.get(volume.id).status == 'available'
    cinder.volumes.delete(volume)



def test_cinder_cli_attachment_create_show_list_delete(stack, cinder, name):
    cli = shutil.which('cinder', path=str(pathlib.Path(sys.executable).parent))
    assert cli is not None, 'cinder CLI not found: pip install -e .[test]'

    def run(*args):
        done = subprocess.run(
            [cli, '--os-auth-type', 'noauth', '--os-user-id', 'admin',
             '--os-project-id', PROJECT,
             '--os-endpoint', f'http://127.0.0.1:{stack.api_port}/v3',
             '--os-volume-api-version', '3.54', *args],
            capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, f'{args}: {done.stderr}'
        return done.stdout
    volume = _volume(cinder, name)
    created = run('attachment-create', '--mode', 'ro', volume.id, INSTANCE)
    (attachment,) = cinder.attachments.list(search_opts={'volume_id': volume.id})
    assert attachment.id in created and attachment.status == 'reserved'
    assert cinder.attachments.show(attachment.id).attach_mode == 'ro'
    assert attachment.id in run('attachment-list', '--volume-id', volume.id)
    assert 'reserved' in run('attachment-show', attachment.id)
    run('attachment-delete', attachment.id)
    assert cinder.volumes.get(volume.id).status == 'available'
    cinder.volumes.delete(volume)
