"""The `openstack volume attachment` commands (3.54) through Keystone: create (which looks the
server up in Nova: the catalog's `compute` service is tests/fixtures/fake_nova.py), list,
show, set (a connector connects it), complete and delete, as a project member.
"""

import uuid

import pytest

from tests.fixtures import fake_nova
from tests.functional.clients.helpers import settle

pytestmark = [pytest.mark.rabbit, pytest.mark.postgresql]

MV = ('--os-volume-api-version', '3.54')
CONNECTOR = ('--initiator', 'iqn.1993-08.org.debian:01:cli', '--ip', '192.0.2.20',
             '--host', 'compute-cli', '--platform', 'x86_64', '--os-type', 'linux',
             '--mountpoint', '/dev/vdc')


@pytest.fixture(scope='module')
def server(keystone):
    """A server id Nova knows, Nova being in the catalog for this module only."""
    with fake_nova.running() as nova:
        server_id = str(uuid.uuid4())
        nova.servers[server_id] = {'id': server_id, 'name': 'cli-server', 'status': 'ACTIVE',
                                   'links': []}
        service_id = keystone.register_service('compute', 'nova', nova.compute_url)
        try:
            yield server_id
        finally:
            keystone.delete_service(service_id)


@pytest.fixture
def member(keystone):
    return keystone.users['member']


def _available_volume(openstack_cli, user, name):
    volume_id = openstack_cli(user, 'volume', 'create', '--size', '1', name, '-f', 'json')['id']
    _status(openstack_cli, user, volume_id, 'available')
    return volume_id


def _status(openstack_cli, user, volume_id, wanted):
    settle(lambda: openstack_cli(user, 'volume', 'show', volume_id, '-f', 'json'),
           until=lambda v: v['status'] == wanted, what=f'volume {volume_id} {wanted}')


def test_attachment_create_list_show_set_complete_delete(openstack_cli, member, server, name):
    def attachment(*args):
        return openstack_cli(member, *MV, 'volume', 'attachment', *args, '-f', 'json')

    volume_id = _available_volume(openstack_cli, member, name)
    created = attachment('create', volume_id, '--server', server, '--mode', 'rw')
    attachment_id = created['ID']
    assert (created['Volume ID'], created['Instance ID'], created['Status'],
            created['Attach Mode'], created['Properties']) == (
        volume_id, server, 'reserved', 'rw', {})
    _status(openstack_cli, member, volume_id, 'reserved')

    listed = attachment('list', '--volume-id', volume_id)
    assert [(a['ID'], a['Volume ID'], a['Server ID'], a['Status']) for a in listed] == [
        (attachment_id, volume_id, server, 'reserved')]

    connected = attachment('set', attachment_id, *CONNECTOR)
    assert connected['Status'] == 'attaching'
    assert connected['Properties']['driver_volume_type'] == 'fake'
    _status(openstack_cli, member, volume_id, 'attaching')

    openstack_cli(member, *MV, 'volume', 'attachment', 'complete', attachment_id)
    shown = attachment('show', attachment_id)
    assert (shown['ID'], shown['Status'], shown['Attach Mode'], shown['Instance ID']) == (
        attachment_id, 'attached', 'rw', server)
    assert shown['Attached At']
    _status(openstack_cli, member, volume_id, 'in-use')
    volume = openstack_cli(member, 'volume', 'show', volume_id, '-f', 'json')
    assert [(a['attachment_id'], a['server_id']) for a in volume['attachments']] == [
        (attachment_id, server)]

    openstack_cli(member, *MV, 'volume', 'attachment', 'delete', attachment_id)
    _status(openstack_cli, member, volume_id, 'available')
    assert attachment('list', '--volume-id', volume_id) == []
    openstack_cli(member, 'volume', 'delete', volume_id)
