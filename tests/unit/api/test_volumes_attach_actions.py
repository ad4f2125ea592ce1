"""The legacy attach actions: os-reserve, os-unreserve, os-begin_detaching,
os-roll_detaching, os-initialize_connection, os-terminate_connection, os-attach, os-detach,
os-force_detach (admin), with Cinder's refusals and nothing written when refused."""

import pytest

from cinderlike.db import attachments as db_attachments
from cinderlike.db import volume_types as db_types
from cinderlike.db import volumes as db_volumes
from tests.unit.api.attachment_fixtures import CONNECTOR, INSTANCE
from tests.unit.api.type_fixtures import PROJECT, user
from tests.unit.api.volume_fixtures import action, add_volume, fault


def _state(db, volume_id):
    row = db_volumes.get(db, volume_id=volume_id)
    return row.status, row.attach_status


def _count(db, volume_id):
    return len(db_attachments.of_volume(db, volume_id=volume_id))


def test_nova_legacy_flow_reserve_connect_attach_detach(aclient, seeded, mrpc):
    volume = add_volume(seeded)
    assert action(aclient, volume.id, {'os-reserve': None}).status_code == 202
    assert _state(seeded, volume.id) == ('attaching', 'detached')
    resp = action(aclient, volume.id, {'os-initialize_connection': {'connector': CONNECTOR}})
    assert resp.status_code == 200
    info = resp.json['connection_info']
    assert info['driver_volume_type'] == 'fake' and info['data']['access_mode'] == 'rw'
    assert info['enforce_multipath'] is False
    resp = action(aclient, volume.id, {'os-attach': {'instance_uuid': INSTANCE,
                                                     'mountpoint': '/dev/vdb'}})
    assert resp.status_code == 202
    assert _state(seeded, volume.id) == ('in-use', 'attached')
    (attachment,) = db_attachments.of_volume(seeded, volume_id=volume.id)
    assert (attachment.instance_uuid, attachment.attach_mode) == (INSTANCE, 'rw')

    assert action(aclient, volume.id, {'os-begin_detaching': None}).status_code == 202
    assert _state(seeded, volume.id) == ('detaching', 'attached')
    assert action(aclient, volume.id, {'os-roll_detaching': None}).status_code == 202
    assert _state(seeded, volume.id) == ('in-use', 'attached')
    action(aclient, volume.id, {'os-begin_detaching': None})
    assert action(aclient, volume.id, {'os-terminate_connection': {'connector': CONNECTOR}}
                  ).status_code == 202
    assert action(aclient, volume.id, {'os-detach': {'attachment_id': attachment.id}}
                  ).status_code == 202
    assert _state(seeded, volume.id) == ('available', 'detached') and _count(
        seeded, volume.id) == 0
    assert [m for m, _kw in mrpc.volume.calls] == [
        'initialize_connection', 'attach_volume', 'terminate_connection', 'detach_volume']


def test_attach_to_a_host_and_detach_without_id(aclient, seeded):
    volume = add_volume(seeded)
    action(aclient, volume.id, {'os-attach': {'host_name': 'glance-1',
                                              'mountpoint': '/mnt/x', 'mode': 'rw'}})
    (attachment,) = db_attachments.of_volume(seeded, volume_id=volume.id)
    assert attachment.attached_host == 'glance-1'
    assert action(aclient, volume.id, {'os-detach': None}).status_code == 202
    assert _state(seeded, volume.id) == ('available', 'detached')


def test_unreserve_returns_to_available(aclient, seeded):
    volume = add_volume(seeded)
    action(aclient, volume.id, {'os-reserve': {}})
    assert action(aclient, volume.id, {'os-unreserve': {}}).status_code == 202
    assert _state(seeded, volume.id) == ('available', 'detached')
    # Not reserved: nothing to do, and no error (Cinder's rule).
    assert action(aclient, volume.id, {'os-unreserve': {}}).status_code == 202
    assert _state(seeded, volume.id) == ('available', 'detached')


@pytest.mark.parametrize('status', ['in-use', 'error', 'creating', 'attaching'])
def test_reserve_in_a_wrong_status_is_400(aclient, seeded, status):
    volume = add_volume(seeded, status=status)
    resp = action(aclient, volume.id, {'os-reserve': None})
    assert fault(resp) == (400, 'Invalid volume: Volume status must be available to reserve, '
                                f'but the status is {status}.')
    assert _state(seeded, volume.id) == (status, 'detached')


def test_a_multiattach_volume_in_use_may_be_reserved_again(aclient, seeded):
    vtype = db_types.create(seeded, name='multi', extra_specs={'multiattach': '<is> True'})
    volume = add_volume(seeded, status='in-use', type_name=vtype.name, multiattach=True)
    assert action(aclient, volume.id, {'os-reserve': None}).status_code == 202
    assert _state(seeded, volume.id)[0] == 'attaching'


def test_begin_detaching_needs_in_use_and_attached(aclient, seeded):
    volume = add_volume(seeded)
    resp = action(aclient, volume.id, {'os-begin_detaching': None})
    assert fault(resp) == (400, "Invalid volume: Unable to detach volume. Volume status must "
                                "be 'in-use' and attach_status must be 'attached' to detach.")
    assert _state(seeded, volume.id) == ('available', 'detached')
    # in-use without being attached (reset by an admin) is refused too.
    db_volumes.MACHINE.reset(seeded, row_id=volume.id, values={'status': 'in-use'})
    assert fault(action(aclient, volume.id, {'os-begin_detaching': None}))[0] == 400


def test_attach_of_a_read_only_volume_needs_ro(aclient, seeded, mrpc):
    volume = add_volume(seeded)
    db_volumes.update_metadata(seeded, volume_id=volume.id, admin=True,
                               metadata={'readonly': 'True'})
    resp = action(aclient, volume.id, {'os-attach': {'instance_uuid': INSTANCE,
                                                     'mountpoint': '/dev/vdb', 'mode': 'rw'}})
    assert fault(resp) == (400, f"Invalid attaching mode 'rw' for volume {volume.id}.")
    assert _count(seeded, volume.id) == 0 and mrpc.volume.calls == []
    resp = action(aclient, volume.id, {'os-attach': {'instance_uuid': INSTANCE,
                                                     'mountpoint': '/dev/vdb', 'mode': 'ro'}})
    assert resp.status_code == 202 and _state(seeded, volume.id) == ('in-use', 'attached')


def test_second_attach_of_a_plain_volume_is_400(aclient, seeded):
    volume = add_volume(seeded)
    body = {'os-attach': {'instance_uuid': INSTANCE, 'mountpoint': '/dev/vdb'}}
    action(aclient, volume.id, body)
    resp = action(aclient, volume.id, body)
    assert fault(resp) == (400, 'Error attaching volume - InvalidVolume: Invalid volume: '
                                'volume is already attached and multiple attachments are not '
                                'enabled')
    assert _count(seeded, volume.id) == 1


def test_maintenance_refuses_connections(aclient, seeded, mrpc):
    volume = add_volume(seeded, status='maintenance')
    for body, text in (
            ({'os-initialize_connection': {'connector': CONNECTOR}},
             'The volume connection cannot be initialized in maintenance mode.'),
            ({'os-attach': {'host_name': 'h', 'mountpoint': '/m'}},
             'The volume cannot be attached in maintenance mode.'),
            ({'os-detach': {}}, 'The volume cannot be detached in maintenance mode.')):
        assert fault(action(aclient, volume.id, body)) == (400, f'Invalid volume: {text}')
    assert mrpc.volume.calls == []


@pytest.mark.parametrize('body', [
    {'os-initialize_connection': {}},
    {'os-initialize_connection': {'connector': 3}},
    {'os-terminate_connection': {}},
    {'os-attach': {'mountpoint': '/dev/vdb'}},
    {'os-attach': {'instance_uuid': 'nope', 'mountpoint': '/dev/vdb'}},
    {'os-attach': {'host_name': 'h', 'mountpoint': '/dev/vdb', 'mode': 'xx'}},
    {'os-detach': {'attachment_id': 'not-a-uuid'}},
    {'os-force_detach': {'other': 1}},
])
def test_bad_bodies_are_400(aclient, seeded, mrpc, body):
    volume = add_volume(seeded)
    assert fault(action(aclient, volume.id, body))[0] == 400
    assert mrpc.volume.calls == [] and _state(seeded, volume.id) == ('available', 'detached')


def test_initialize_with_a_bad_connector_is_400(aclient, seeded, mrpc):
    volume = add_volume(seeded)
    resp = action(aclient, volume.id, {'os-initialize_connection': {'connector': 'c'}})
    assert fault(resp) == (400, "Invalid input received: Connector doesn't have required "
                                'information: host')
    assert mrpc.volume.calls == []


def test_unknown_volume_is_404(aclient, seeded):
    missing = '2c5e2b86-4c67-4b7c-9a62-1d4b0c7b9f00'
    resp = action(aclient, missing, {'os-reserve': None})
    assert fault(resp) == (404, f'Volume {missing} could not be found.')


def test_force_detach_is_for_admins_and_detaches(aclient, akclient, seeded):
    volume = add_volume(seeded, project=PROJECT)
    action(aclient, volume.id, {'os-attach': {'instance_uuid': INSTANCE,
                                              'mountpoint': '/dev/vdb'}})
    (attachment,) = db_attachments.of_volume(seeded, volume_id=volume.id)
    body = {'os-force_detach': {'attachment_id': attachment.id, 'connector': CONNECTOR}}
    assert fault(action(akclient, volume.id, body, headers=user()))[0] == 403
    assert _state(seeded, volume.id) == ('in-use', 'attached')
    assert action(aclient, volume.id, body).status_code == 202
    assert _state(seeded, volume.id) == ('available', 'detached') and _count(
        seeded, volume.id) == 0


def test_a_member_uses_the_legacy_actions_on_its_volume(akclient, seeded):
    volume = add_volume(seeded, project=PROJECT)
    assert action(akclient, volume.id, {'os-reserve': None},
                  headers=user()).status_code == 202
    assert fault(action(akclient, volume.id, {'os-unreserve': None},
                        headers=user(roles='reader')))[0] == 403
    assert _state(seeded, volume.id) == ('attaching', 'detached')
