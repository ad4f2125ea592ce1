"""The volume service's side of attachments on the fake driver: connect, disconnect, the
legacy attach/detach, the failures' statuses and user messages, and re-export at start-up."""

import json

import pytest
import sqlalchemy as sa

from cinderlike import exception
from cinderlike.db import attachments as db_attachments
from cinderlike.db import volumes as db_volumes
from cinderlike.db.models import Volume
from tests.unit.volume.conftest import add_volume, ctx, event_ids, notified, row

CONNECTOR = {'host': 'compute-1', 'initiator': 'iqn.1993-08.org.debian:01:abc',
             'mountpoint': '/dev/vdb'}
INSTANCE = '6c7e5d8e-7a55-4a4e-9f0a-2a0f3b9d4c11'


class Calls:
    """Records the driver calls it stands in for, then runs the real one."""

    def __init__(self, driver, *names):
        self.made = []
        for name in names:
            setattr(driver, name, self._wrap(name, getattr(driver, name)))

    def _wrap(self, name, real):
        def call(volume, *args):
            self.made.append((name, volume.id, *args))
            return real(volume, *args)
        return call


def _reserved(db, **values):
    volume = add_volume(db, status='available', **values)
    return volume, db_attachments.reserve(db, volume_id=volume.id, instance_uuid=INSTANCE,
                                          attach_mode='null')


def _connect(manager, db, connector=CONNECTOR, **values):
    volume, attachment = _reserved(db, **values)
    info = manager.attachment_update(ctx(), volume_id=volume.id, attachment_id=attachment.id,
                                     connector=dict(connector))
    return volume, attachment, info


def test_attachment_update_exports_and_stores_connector_and_info(manager, db):
    calls = Calls(manager.driver, 'create_export', 'initialize_connection')
    volume, attachment, info = _connect(manager, db)
    assert info == {'volume_id': volume.id, 'access_mode': 'rw', 'encrypted': False,
                    'enforce_multipath': False, 'driver_volume_type': 'fake',
                    'attachment_id': attachment.id}
    stored = db_attachments.get(db, attachment_id=attachment.id)
    assert stored.attach_status == 'attaching' and stored.attach_mode == 'rw'
    assert json.loads(stored.connector) == CONNECTOR
    assert json.loads(stored.connection_info) == info
    assert (stored.attached_host, stored.mountpoint) == ('compute-1', '/dev/vdb')
    assert stored.attach_time is not None
    assert [c[0] for c in calls.made] == ['create_export', 'initialize_connection']
    assert (row(db, volume.id).status, row(db, volume.id).attach_status) == (
        'attaching', 'attaching')
    assert 'volume.attach.start' in notified()


@pytest.mark.parametrize('failing', ['create_export', 'initialize_connection'])
def test_a_failed_connection_is_error_attaching_with_a_message(manager, db, conf, failing):
    conf.set_override('fake_fail', [failing], group='lvm')
    calls = Calls(manager.driver, 'remove_export')
    with pytest.raises(exception.VolumeBackendAPIException):
        _connect(manager, db)
    (attachment,) = db_attachments.of_volume(db, volume_id=row_id(db))
    assert attachment.attach_status == 'error_attaching' and attachment.connector is None
    volume = row(db, attachment.volume_id)
    assert (volume.status, volume.attach_status) == ('available', 'detached')
    assert event_ids(db) == ['VOLUME_VOLUME_004_021']
    # A failed connection removes the export it made.
    assert [c[0] for c in calls.made] == ([] if failing == 'create_export'
                                          else ['remove_export'])


def row_id(db):
    """The id of the test's only volume."""
    with db.reader() as s:
        return s.scalars(sa.select(Volume.id)).one()


def test_an_uninitialized_driver_refuses_and_leaves_nothing_attached(manager, db):
    manager.initialized = False
    with pytest.raises(exception.DriverNotInitialized):
        _connect(manager, db)
    (attachment,) = db_attachments.of_volume(db, volume_id=row_id(db))
    assert attachment.attach_status == 'error_attaching'
    assert event_ids(db) == ['VOLUME_VOLUME_004_002']


def test_read_only_volume_connects_ro(manager, db):
    volume, attachment = _reserved(db)
    db_volumes.update_metadata(db, volume_id=volume.id, admin=True,
                               metadata={'readonly': 'True'})
    info = manager.attachment_update(ctx(), volume_id=volume.id, attachment_id=attachment.id,
                                     connector=dict(CONNECTOR))
    assert info['access_mode'] == 'ro'


def test_attachment_delete_removes_the_export_only_with_the_last_connection(manager, db):
    volume = add_volume(db, status='available', multiattach=True)
    ids = []
    for host in ('compute-1', 'compute-2'):
        attachment = db_attachments.reserve(db, volume_id=volume.id, instance_uuid=None,
                                            attach_mode='null')
        manager.attachment_update(ctx(), volume_id=volume.id, attachment_id=attachment.id,
                                  connector=dict(CONNECTOR, host=host))
        db_attachments.complete(db, attachment_id=attachment.id)
        ids.append(attachment.id)
    calls = Calls(manager.driver, 'terminate_connection', 'remove_export')
    for attachment_id in ids:
        db_attachments.begin_detach(db, attachment_id=attachment_id)
        manager.attachment_delete(ctx(), volume_id=volume.id, attachment_id=attachment_id)
        db_attachments.finish_detach(db, volume_id=volume.id, attachment_id=attachment_id)
    assert [c[0] for c in calls.made] == ['terminate_connection', 'terminate_connection',
                                          'remove_export']
    assert calls.made[0][2]['host'] == 'compute-1'
    assert (row(db, volume.id).status, row(db, volume.id).attach_status) == (
        'available', 'detached')
    assert 'volume.detach.start' in notified()


def test_a_failed_terminate_is_error_detaching_with_a_message(manager, db, conf):
    volume, attachment, _info = _connect(manager, db)
    db_attachments.complete(db, attachment_id=attachment.id)
    db_attachments.begin_detach(db, attachment_id=attachment.id)
    conf.set_override('fake_fail', ['terminate_connection'], group='lvm')
    with pytest.raises(exception.VolumeBackendAPIException):
        manager.attachment_delete(ctx(), volume_id=volume.id, attachment_id=attachment.id)
    assert db_attachments.get(db, attachment_id=attachment.id).attach_status == \
        'error_detaching'
    # error attachments do not count: the volume is no longer in use.
    assert row(db, volume.id).status == 'available'
    assert event_ids(db) == ['VOLUME_VOLUME_004_022']


def test_legacy_attach_and_detach(manager, db):
    volume = add_volume(db, status='attaching')
    attachment_id = manager.attach_volume(ctx(), volume_id=volume.id, instance_uuid=INSTANCE,
                                          host_name=None, mountpoint='/dev/vdc', mode='rw')
    stored = db_attachments.get(db, attachment_id=attachment_id)
    assert (stored.attach_status, stored.instance_uuid, stored.mountpoint) == (
        'attached', INSTANCE, '/dev/vdc')
    assert (row(db, volume.id).status, row(db, volume.id).attach_status) == (
        'in-use', 'attached')
    assert db_volumes.get_metadata(db, volume_ids=[volume.id], admin=True)[volume.id] == {
        'attached_mode': 'rw'}
    with pytest.raises(exception.InvalidVolume, match='volume is already attached'):
        manager.attach_volume(ctx(), volume_id=volume.id, instance_uuid=None,
                              host_name='other', mountpoint='/dev/vdd', mode='rw')
    manager.detach_volume(ctx(), volume_id=volume.id)
    assert (row(db, volume.id).status, row(db, volume.id).attach_status) == (
        'available', 'detached')
    assert db_volumes.get_metadata(db, volume_ids=[volume.id], admin=True)[volume.id] == {}
    assert notified() == ['volume.attach.start', 'volume.attach.end', 'volume.detach.start',
                          'volume.detach.end']


def test_legacy_attach_of_a_read_only_volume_needs_ro(manager, db):
    volume = add_volume(db, status='attaching')
    db_volumes.update_metadata(db, volume_id=volume.id, admin=True,
                               metadata={'readonly': 'True'})
    with pytest.raises(exception.InvalidVolumeAttachMode):
        manager.attach_volume(ctx(), volume_id=volume.id, instance_uuid=INSTANCE,
                              host_name=None, mountpoint='/dev/vdc', mode='rw')
    assert db_attachments.of_volume(db, volume_id=volume.id) == []
    assert event_ids(db) == ['VOLUME_VOLUME_002_005']


def test_detach_without_id_of_several_attachments_is_refused(manager, db):
    volume = add_volume(db, status='available', multiattach=True)
    for host in ('a', 'b'):
        manager.attach_volume(ctx(), volume_id=volume.id, instance_uuid=None, host_name=host,
                              mountpoint='/dev/vdc', mode='rw')
    with pytest.raises(exception.InvalidVolume, match='More than one attachment'):
        manager.detach_volume(ctx(), volume_id=volume.id)
    assert len(db_attachments.of_volume(db, volume_id=volume.id)) == 2


def test_init_host_re_exports_connected_volumes(manager, db):
    volume, attachment, _info = _connect(manager, db)
    db_attachments.complete(db, attachment_id=attachment.id)
    idle = add_volume(db, status='available')
    # Reserved, so never connected: nothing to export for it.
    db_attachments.reserve(db, volume_id=idle.id, instance_uuid=None, attach_mode='null')
    calls = Calls(manager.driver, 'ensure_export', 'create_export')
    manager.init_host(ctx())
    assert calls.made == [('ensure_export', volume.id)]
    assert row(db, volume.id).status == 'in-use'


def test_init_host_re_exports_a_volume_being_detached_too(manager, db):
    volume, attachment, _info = _connect(manager, db)
    db_attachments.complete(db, attachment_id=attachment.id)
    db_attachments.begin_detach(db, attachment_id=attachment.id)
    assert row(db, volume.id).status == 'detaching'
    calls = Calls(manager.driver, 'ensure_export')
    manager.init_host(ctx())
    assert calls.made == [('ensure_export', volume.id)]


def test_a_failed_re_export_keeps_the_volume_in_use(manager, db, conf):
    volume, attachment, _info = _connect(manager, db)
    db_attachments.complete(db, attachment_id=attachment.id)
    conf.set_override('fake_fail', ['ensure_export'], group='lvm')
    manager.init_host(ctx())
    assert manager.initialized and row(db, volume.id).status == 'in-use'


def test_a_created_volume_names_its_service(manager, db):
    volume = add_volume(db, status='creating')
    manager.create_volume(ctx(), volume_id=volume.id, request_spec={}, filter_properties={})
    created = row(db, volume.id)
    assert created.status == 'available'
    assert created.service_uuid == manager.service_uuid is not None
    assert created.shared_targets is True


def test_remove_export_cast_and_legacy_initialize_and_terminate(manager, db):
    volume = add_volume(db, status='available')
    calls = Calls(manager.driver, 'create_export', 'initialize_connection',
                  'terminate_connection', 'remove_export')
    info = manager.initialize_connection(ctx(), volume_id=volume.id, connector=dict(CONNECTOR))
    assert info['driver_volume_type'] == 'fake' and info['data']['access_mode'] == 'rw'
    manager.terminate_connection(ctx(), volume_id=volume.id, connector=dict(CONNECTOR))
    manager.remove_export(ctx(), volume_id=volume.id)
    assert [c[0] for c in calls.made] == ['create_export', 'initialize_connection',
                                          'terminate_connection', 'remove_export']
    # Nothing of the legacy connection is recorded on the volume.
    assert db_attachments.of_volume(db, volume_id=volume.id) == []
    assert row(db, volume.id).status == 'available'
