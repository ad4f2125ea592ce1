"""The backup manager's operations on real data: a file-driver volume backed up to posix,
restored into other volumes (sha256 equal), in-use through a temporary snapshot, corrupt
objects, driver failures, delete, export/import and the start-up cleanup."""

import os

import pytest
import sqlalchemy as sa
from oslo_messaging.notify import _impl_test

from cinderlike import context
from cinderlike.backup import create
from cinderlike.backup import manager as backup_manager
from cinderlike.db import backups as db_backups
from cinderlike.db import services as db_services
from cinderlike.db import settle as db_settle
from cinderlike.db import snapshots as db_snapshots
from cinderlike.db import volumes as db_volumes
from cinderlike.db import workers as db_workers
from cinderlike.db.models import Backup, Snapshot, Volume, Worker
from tests.unit.backup.conftest import sha_of, write_pattern
from tests.unit.volume.conftest import add_volume, claimed, event_ids, row

pytestmark = pytest.mark.qemu_img

CTX = context.RequestContext(user_id='u1', project_id='p1', is_admin=True)
SIZE = 16 * 1024 * 1024


def _volume(mgr, db, status='available'):
    """A created 1 GiB file volume in *status*, with a pattern written; (row, path)."""
    volume = add_volume(db, size=1)
    mgr.volume_api._manager.create_volume(CTX, volume_id=volume.id, request_spec={},
                                          filter_properties={})
    path = row(db, volume.id).provider_location
    # NOTE(size): the file is cut to 16 MiB so the tests move little data; the connector
    # reports the file's size, which is all the driver reads or writes.
    os.truncate(path, SIZE)
    write_pattern(path, volume.id.encode())
    db_volumes.MACHINE.reset(db, row_id=volume.id, values={'status': status})
    return row(db, volume.id), path


def _backup(mgr, db, volume, *, force=False, parent_id=None):
    """A `creating` backup of *volume* as the API inserts it, created by the manager."""
    backup = db_backups.create(
        db, metadata=None, source_action='backup_in_use' if force else 'backup',
        reserve=lambda s: [], values={'volume_id': volume.id, 'project_id': 'p1',
                                      'user_id': 'u1', 'size': volume.size, 'host': 'bk1',
                                      'availability_zone': 'nova', 'parent_id': parent_id})
    mgr.create_backup(CTX, backup_id=backup.id)
    return db_backups.get(db, backup_id=backup.id)


def _snapshot_backup(mgr, db, volume, snapshot):
    """A `creating` backup of *snapshot*, created by the manager."""
    backup = db_backups.create(
        db, metadata=None, source_action='backup_snapshot', reserve=lambda s: [],
        values={'volume_id': volume.id, 'snapshot_id': snapshot.id, 'project_id': 'p1',
                'user_id': 'u1', 'size': volume.size, 'host': 'bk1',
                'availability_zone': 'nova'})
    mgr.create_backup(CTX, backup_id=backup.id)
    return db_backups.get(db, backup_id=backup.id)


def _restore(mgr, db, backup, volume):
    db_backups.begin_restore(db, backup_id=backup.id, volume_id=volume.id, values={})
    mgr.restore_backup(CTX, backup_id=backup.id, volume_id=volume.id, volume_is_new=False)


def _no_workers(db) -> bool:
    with db.reader() as s:
        return not list(s.scalars(sa.select(Worker)))


def test_backup_then_restore_into_another_volume_and_into_the_original(backup_mgr, db):
    volume, path = _volume(backup_mgr, db)
    original = sha_of(path)
    backup = _backup(backup_mgr, db, volume)
    assert (backup.status, backup.object_count > 0, backup.fail_reason) == (
        'available', True, None)
    assert (backup.service, backup.availability_zone) == (
        'cinder.backup.drivers.posix.PosixBackupDriver', 'nova')
    assert backup.service_metadata.startswith(f'volume_{volume.id}_')
    assert row(db, volume.id).status == 'available'
    other, other_path = _volume(backup_mgr, db)
    _restore(backup_mgr, db, backup, other)
    assert sha_of(other_path) == original
    assert row(db, other.id).status == 'available'
    assert db_volumes.get_metadata(db, volume_ids=[other.id])[other.id] == {
        'src_backup_id': backup.id}
    write_pattern(path, b'overwritten')
    _restore(backup_mgr, db, backup, volume)
    assert sha_of(path) == original
    assert db_backups.get(db, backup_id=backup.id).status == 'available'
    assert _no_workers(db)
    # Reads and writes went through the volume service's connection, undone each time.
    calls = backup_mgr.volume_api.calls
    assert calls.count('initialize_connection') == 3
    assert calls.count('terminate_connection') == calls.count('remove_export') == 3


def test_notifications_of_create_restore_and_delete(backup_mgr, db):
    volume, _path = _volume(backup_mgr, db)
    _impl_test.reset()
    backup = _backup(backup_mgr, db, volume)
    _restore(backup_mgr, db, backup, volume)
    db_backups.MACHINE.begin(db, row_id=backup.id, action='delete')
    backup_mgr.delete_backup(CTX, backup_id=backup.id)
    sent = [n[1]['event_type'] for n in _impl_test.NOTIFICATIONS
            if n[1]['event_type'].startswith('backup.')]
    assert sent == ['backup.create.start', 'backup.create.end', 'backup.restore.start',
                    'backup.restore.end', 'backup.delete.start', 'backup.delete.end']


def _live_snapshots(db) -> list:
    with db.reader() as s:
        return list(s.scalars(sa.select(Snapshot).where(Snapshot.deleted.is_(False))))


def _use_temp_snapshot(mgr, value: bool) -> None:
    mgr.volume_api._manager.conf.set_override('backup_use_temp_snapshot', value,
                                              group='lvm')


def test_an_in_use_volume_is_read_through_a_temporary_snapshot(backup_mgr, db, tmp_path):
    _use_temp_snapshot(backup_mgr, True)
    volume, path = _volume(backup_mgr, db, status='in-use')
    original = sha_of(path)
    backup = _backup(backup_mgr, db, volume, force=True)
    assert backup.status == 'available' and backup.temp_snapshot_id is None
    assert row(db, volume.id).status == 'in-use'
    assert _live_snapshots(db) == []
    assert not [f for f in os.listdir(tmp_path / 'vols') if f.startswith('snapshot-')]
    calls = backup_mgr.volume_api.calls
    assert calls.count('initialize_connection_snapshot') == 1
    assert calls.count('terminate_connection_snapshot') == 1
    assert calls.count('remove_export_snapshot') == 1
    assert 'initialize_connection' not in calls
    other, other_path = _volume(backup_mgr, db)
    _restore(backup_mgr, db, backup, other)
    assert sha_of(other_path) == original


def _live_volumes(db) -> set[str]:
    with db.reader() as s:
        return set(s.scalars(sa.select(Volume.id).where(Volume.deleted.is_(False))))


def test_an_in_use_volume_is_read_through_a_temporary_clone_by_default(backup_mgr, db,
                                                                        tmp_path):
    volume, path = _volume(backup_mgr, db, status='in-use')
    original = sha_of(path)
    before, claim = _live_volumes(db), claimed(db)
    clones = []
    real_backup = backup_mgr.driver.backup

    def seen(ref, volume_file, **kwargs):
        temp = db_volumes.get(db, volume_id=db_backups.get(db, backup_id=ref.id)
                              .temp_volume_id)
        clones.append((temp.display_name, temp.status, temp.use_quota, claimed(db)))
        return real_backup(ref, volume_file, **kwargs)
    backup_mgr.driver.backup = seen
    backup = _backup(backup_mgr, db, volume, force=True)
    # While it ran: a `backing-up` clone holding its capacity claim, consuming no quota.
    assert clones == [(f'backup-vol-{volume.id}', 'backing-up', False, claim + 1)]
    assert (backup.status, backup.temp_volume_id) == ('available', None)
    assert row(db, volume.id).status == 'in-use'
    assert (_live_volumes(db), claimed(db)) == (before, claim)
    assert _live_snapshots(db) == []
    assert sorted(os.listdir(tmp_path / 'vols')) == [f'volume-{volume.id}']
    calls = backup_mgr.volume_api.calls
    assert calls.count('initialize_connection') == calls.count('terminate_connection') == 1
    assert 'initialize_connection_snapshot' not in calls
    other, other_path = _volume(backup_mgr, db)
    _restore(backup_mgr, db, backup, other)
    assert sha_of(other_path) == original


def test_a_snapshot_is_read_through_a_temporary_volume_unless_temp_snapshots(backup_mgr,
                                                                             db, tmp_path):
    volume, path = _volume(backup_mgr, db)
    volume_mgr = backup_mgr.volume_api._manager
    snapshot = db_snapshots.create(db, values={
        'volume_id': volume.id, 'project_id': 'p1', 'user_id': 'u1', 'volume_size': 1,
        'volume_type_id': volume.volume_type_id, 'status': 'creating', 'use_quota': False})
    volume_mgr.create_snapshot(CTX, snapshot_id=snapshot.id)
    original = sha_of(path)
    write_pattern(path, b'after the snapshot')
    for use_snapshot in (False, True):
        _use_temp_snapshot(backup_mgr, use_snapshot)
        backup_mgr.volume_api.calls.clear()
        backup = _snapshot_backup(backup_mgr, db, volume, snapshot)
        assert (backup.status, backup.temp_volume_id) == ('available', None)
        calls = backup_mgr.volume_api.calls
        assert ('initialize_connection_snapshot' in calls) is use_snapshot
        assert ('initialize_connection' in calls) is not use_snapshot
        other, other_path = _volume(backup_mgr, db)
        _restore(backup_mgr, db, backup, other)
        assert sha_of(other_path) == original
    assert [s.id for s in _live_snapshots(db)] == [snapshot.id]


def test_a_failed_clone_leaves_no_volume_and_no_claim(backup_mgr, db):
    volume, _path = _volume(backup_mgr, db, status='in-use')
    before, claim = _live_volumes(db), claimed(db)
    driver = backup_mgr.volume_api._manager.driver

    def broken(temp, source):
        raise OSError('clone failed')
    driver.create_cloned_volume = broken
    backup = _backup(backup_mgr, db, volume, force=True)
    assert (backup.status, backup.temp_volume_id) == ('error', None)
    assert row(db, volume.id).status == 'in-use'
    assert (_live_volumes(db), claimed(db)) == (before, claim)
    assert 'VOLUME_VOLUME_BACKUP_013_019' in event_ids(db)


def test_a_corrupt_object_fails_the_restore_to_error_restoring_with_a_message(backup_mgr,
                                                                              db, tmp_path):
    volume, _path = _volume(backup_mgr, db)
    backup = _backup(backup_mgr, db, volume)
    container = tmp_path / 'backups' / backup.container
    victim = container / f'{backup.service_metadata}-00001'

    blob = bytearray(victim.read_bytes())
    blob[100] ^= 0xFF
    victim.write_bytes(bytes(blob))
    other, other_path = _volume(backup_mgr, db)
    before = sha_of(other_path)
    _restore(backup_mgr, db, backup, other)
    assert row(db, other.id).status == 'error_restoring'
    assert db_backups.get(db, backup_id=backup.id).status == 'available'
    assert 'VOLUME_VOLUME_BACKUP_015_026' in event_ids(db)
    # Nothing of the bad object reached the volume.
    assert sha_of(other_path) == before


class _Broken(Exception):
    pass


def test_a_driver_failure_ends_error_with_the_volume_back_and_a_message(backup_mgr, db):
    volume, _path = _volume(backup_mgr, db, status='in-use')

    def broken(*args, **kwargs):
        raise _Broken('disk on fire')
    backup_mgr.driver.backup = broken
    backup = _backup(backup_mgr, db, volume, force=True)
    assert (backup.status, backup.fail_reason) == ('error', 'disk on fire')
    assert row(db, volume.id).status == 'in-use'
    assert 'VOLUME_VOLUME_BACKUP_013_020' in event_ids(db)
    with db.reader() as s:
        assert list(s.scalars(sa.select(Snapshot).where(Snapshot.deleted.is_(False)))) == []
    assert _no_workers(db)


def test_delete_removes_the_objects_the_row_and_its_quota(backup_mgr, db, tmp_path):
    volume, _path = _volume(backup_mgr, db)
    backup = _backup(backup_mgr, db, volume)
    child = _backup(backup_mgr, db, volume, parent_id=backup.id)
    assert child.status == 'available'
    assert db_backups.get(db, backup_id=backup.id).num_dependent_backups == 1
    db_backups.MACHINE.begin(db, row_id=child.id, action='delete')
    backup_mgr.delete_backup(CTX, backup_id=child.id)
    assert db_backups.get_any(db, backup_id=child.id).deleted
    assert db_backups.get(db, backup_id=backup.id).num_dependent_backups == 0
    db_backups.MACHINE.begin(db, row_id=backup.id, action='delete')
    backup_mgr.delete_backup(CTX, backup_id=backup.id)
    container = tmp_path / 'backups' / backup.container
    assert not container.exists() or not list(container.iterdir())


def test_export_and_import_into_a_fresh_deployment_restores_the_same_bytes(
        backup_mgr, db, tmp_path):
    volume, path = _volume(backup_mgr, db)
    original = sha_of(path)
    backup = _backup(backup_mgr, db, volume)
    record = backup_mgr.export_record(CTX, backup_id=backup.id)
    assert record['backup_service'] == backup.service
    # The fresh deployment: the record's row gone here, imported under the same id.
    with db.writer() as s:
        s.execute(sa.delete(Backup).where(Backup.id == backup.id))
    imported = db_backups.create_import(db, backup_id=backup.id, reserve=lambda s: [],
                                        values={'project_id': 'p1', 'size': backup.size})
    backup_mgr.import_record(CTX, backup_id=imported.id, backup_service='posix',
                             backup_url=record['backup_url'], backup_hosts=[])
    row_now = db_backups.get(db, backup_id=backup.id)
    assert (row_now.status, row_now.service_metadata, row_now.object_count) == (
        'available', backup.service_metadata, backup.object_count)
    other, other_path = _volume(backup_mgr, db)
    _restore(backup_mgr, db, row_now, other)
    assert sha_of(other_path) == original


def test_start_up_settles_what_the_host_left_in_flight(backup_mgr, db):
    in_use, _p = _volume(backup_mgr, db, status='in-use')
    creating = db_backups.create(db, metadata=None, source_action='backup_in_use',
                                 reserve=lambda s: [], values={
                                     'volume_id': in_use.id, 'project_id': 'p1', 'size': 1,
                                     'host': 'bk1'})
    target, _p2 = _volume(backup_mgr, db)
    done = _backup(backup_mgr, db, target)
    db_backups.begin_restore(db, backup_id=done.id, volume_id=target.id, values={})
    before, claim = _live_volumes(db), claimed(db)
    # The dead run had its temporary clone made.
    device = backup_mgr.volume_api.get_backup_device(CTX, backup_id=creating.id)
    assert device['id'] in _live_volumes(db) and claimed(db) == claim + 1
    restarted = backup_manager.BackupManager(backup_mgr.conf, host='bk1', db=db)
    restarted.volume_api = backup_mgr.volume_api
    restarted.init_host(CTX)
    assert db_backups.get(db, backup_id=creating.id).status == 'error'
    assert row(db, in_use.id).status == 'in-use'
    assert (_live_volumes(db), claimed(db)) == (before, claim)
    assert db_backups.get(db, backup_id=creating.id).temp_volume_id is None
    assert db_backups.get(db, backup_id=done.id).status == 'available'
    assert row(db, target.id).status == 'error_restoring'
    assert _no_workers(db)
    # Each operation the cleanup ended in failure tells the backup's project why.
    assert sorted(event_ids(db)) == ['VOLUME_VOLUME_BACKUP_013_001',
                                     'VOLUME_VOLUME_BACKUP_015_001']


def test_the_service_is_down_until_the_driver_check_passes(backup_mgr, db, tmp_path):
    backup_mgr.conf.set_override('backup_posix_path', '/proc/no-such/dir')
    sick = backup_manager.BackupManager(backup_mgr.conf, host='bk1', db=db)
    sick.init_host(CTX)
    assert not sick.is_working()
    assert sick.periodic_option('backup_driver_init_check_interval') == 60
    sick.driver.root = str(tmp_path / 'ok')
    sick._retry_driver_setup(CTX)
    assert sick.is_working()


def test_settle_is_fenced_after_a_take_over(backup_mgr, db):
    volume, _path = _volume(backup_mgr, db)
    backup = db_backups.create(db, metadata=None, source_action='backup', reserve=lambda s: [],
                               values={'volume_id': volume.id, 'project_id': 'p1', 'size': 1})
    _row, hold = backup_mgr.hold(db_backups.MACHINE, row_id=backup.id, status='creating')
    backup_mgr.hold(db_backups.MACHINE, row_id=backup.id, status='creating')
    assert db_settle.settle(db, db_backups.MACHINE, row=backup, hold=hold,
                            outcome=db_settle.Outcome(action='create')) is \
        db_settle.Settled.FENCED


class _DirectBackupAPI:
    """The volume service's BackupAPI, casting straight into the backup manager."""

    def __init__(self, backup_manager):
        self._manager = backup_manager

    def restore_backup(self, ctx, *, host, **kwargs):
        self._manager.restore_backup(ctx, **kwargs)


def test_a_volume_created_from_a_backup_holds_its_data(backup_mgr, db):
    volume, path = _volume(backup_mgr, db)
    original = sha_of(path)
    backup = _backup(backup_mgr, db, volume)
    volume_mgr = backup_mgr.volume_api._manager
    volume_mgr.backup_api = _DirectBackupAPI(backup_mgr)
    new = add_volume(db, size=1)
    volume_mgr.create_volume(CTX, volume_id=new.id, request_spec={'backup_id': backup.id},
                             filter_properties={})
    created = row(db, new.id)
    assert (created.status, created.launched_at is not None) == ('available', True)
    # The new volume is a full 1 GiB file; the backup holds the first 16 MiB of its source.
    with open(created.provider_location, 'rb') as data:
        head = data.read(SIZE)
    with open(path, 'rb') as source:
        assert head == source.read(SIZE)
    assert sha_of(path) == original
    assert db_backups.get(db, backup_id=backup.id).status == 'available'


def test_a_volume_from_a_backup_that_moved_on_ends_in_error(backup_mgr, db):
    volume, _path = _volume(backup_mgr, db)
    backup = _backup(backup_mgr, db, volume)
    db_backups.MACHINE.begin(db, row_id=backup.id, action='delete')
    volume_mgr = backup_mgr.volume_api._manager
    volume_mgr.backup_api = _DirectBackupAPI(backup_mgr)
    new = add_volume(db, size=1)
    volume_mgr.create_volume(CTX, volume_id=new.id, request_spec={'backup_id': backup.id},
                             filter_properties={})
    assert row(db, new.id).status == 'error'
    assert 'VOLUME_VOLUME_BACKUP_015_017' in event_ids(db)


def test_workers_cleanup_settles_a_down_backup_services_rows(backup_mgr, db):
    volume, _path = _volume(backup_mgr, db, status='in-use')
    creating = db_backups.create(db, metadata=None, source_action='backup_in_use',
                                 reserve=lambda s: [], values={
                                     'volume_id': volume.id, 'project_id': 'p1', 'size': 1,
                                     'host': 'bk-dead'})
    target, _p2 = _volume(backup_mgr, db)
    done = _backup(backup_mgr, db, target)
    db_backups.begin_restore(db, backup_id=done.id, volume_id=target.id, values={})
    dead = db_services.register(db, host='bk-dead', binary='cinder-backup',
                                topic='cinder-backup', availability_zone='nova')
    for backup_id, status in ((creating.id, 'creating'), (done.id, 'restoring')):
        db_workers.begin(db, resource_type='Backup', resource_id=backup_id, status=status,
                         service_id=dead.id)
    backup_mgr.do_cleanup(CTX, cleanup_request={'service_ids': [dead.id], 'until': None,
                                                'resource_type': None, 'resource_id': None})
    assert db_backups.get(db, backup_id=creating.id).status == 'error'
    assert row(db, volume.id).status == 'in-use'
    assert db_backups.get(db, backup_id=done.id).status == 'available'
    assert row(db, target.id).status == 'error_restoring'
    assert _no_workers(db)


def test_createprogress_at_most_every_backup_timer_interval(backup_mgr, db):
    volume, _path = _volume(backup_mgr, db)
    backup = db_backups.create(db, metadata=None, source_action='backup', reserve=lambda s: [],
                               values={'volume_id': volume.id, 'project_id': 'p1', 'size': 1})
    backup_mgr.conf.set_override('backup_timer_interval', 10)
    ticks = iter([0, 4, 11, 15, 22])
    report = create.progress_reporter(backup_mgr, CTX, backup, clock=lambda: next(ticks))
    _impl_test.reset()
    for done in (1, 2, 3, 4):
        report(done * 25, 100)
    sent = [(n[1]['event_type'], n[1]['payload']['progress'])
            for n in _impl_test.NOTIFICATIONS]
    assert sent == [('backup.createprogress', 50.0), ('backup.createprogress', 100.0)]
    backup_mgr.conf.set_override('backup_enable_progress_timer', False)
    _impl_test.reset()
    create.progress_reporter(backup_mgr, CTX, backup, clock=lambda: 100)(1, 2)
    assert _impl_test.NOTIFICATIONS == []


def test_a_force_delete_cancels_a_running_backup_and_frees_its_volume(backup_mgr, db,
                                                                       tmp_path):
    volume, _path = _volume(backup_mgr, db, status='in-use')
    real_backup = backup_mgr.driver.backup

    def force_deleted_meanwhile(ref, volume_file, *, volume_meta=None, progress=None):
        db_backups.MACHINE.begin(db, row_id=ref.id, action='force_delete')
        # the delete's cast takes the workers row over, as on a live host
        backup_mgr.hold(db_backups.MACHINE, row_id=ref.id, status='deleting')
        return real_backup(ref, volume_file, volume_meta=volume_meta, progress=progress)
    backup_mgr.driver.backup = force_deleted_meanwhile
    backup = _backup(backup_mgr, db, volume, force=True)
    assert backup.status == 'deleting'
    assert row(db, volume.id).status == 'in-use'
    # The driver stopped at its first progress report and removed what it wrote.
    assert not list((tmp_path / 'backups').rglob(f'*_backup_{backup.id}*'))
    assert 'VOLUME_VOLUME_BACKUP_013_020' not in event_ids(db)
    backup_mgr.delete_backup(CTX, backup_id=backup.id)
    assert db_backups.get_any(db, backup_id=backup.id).deleted


def test_a_reset_of_the_backup_cancels_a_running_restore(backup_mgr, db):
    volume, _path = _volume(backup_mgr, db)
    backup = _backup(backup_mgr, db, volume)
    target, target_path = _volume(backup_mgr, db)
    real_restore = backup_mgr.driver.restore
    written = []

    def reset_meanwhile(ref, volume_id, volume_file, *, volume_is_new, progress=None):
        db_backups.MACHINE.reset(db, row_id=ref.id, values={'status': 'error'})

        def counted(done, total):
            written.append(done)
            progress(done, total)
        return real_restore(ref, volume_id, volume_file, volume_is_new=volume_is_new,
                            progress=counted)
    backup_mgr.driver.restore = reset_meanwhile
    before = sha_of(target_path)
    _restore(backup_mgr, db, backup, target)
    # Stopped at its first piece: the volume is `error` (Cinder's), the backup keeps the
    # status the admin gave it, no workers row and no user message remain.
    assert len(written) == 1
    assert row(db, target.id).status == 'error'
    assert db_backups.get(db, backup_id=backup.id).status == 'error'
    assert _no_workers(db)
    assert 'VOLUME_VOLUME_BACKUP_015_026' not in event_ids(db)
    assert sha_of(target_path) != before  # the first piece was written: the volume is useless


def test_each_operation_takes_the_driver_of_its_request(backup_mgr, db, monkeypatch):
    # NOTE(per_user): Swift's per_user auth needs the requester's token, so create, restore,
    # export and delete each ask the driver for the one of their request's context.
    asked = []
    driver = backup_mgr.driver

    def for_context(ctx):
        asked.append(ctx)
        return driver
    monkeypatch.setattr(driver, 'for_context', for_context)
    volume, _path = _volume(backup_mgr, db)
    backup = _backup(backup_mgr, db, volume)
    _restore(backup_mgr, db, backup, volume)
    backup_mgr.export_record(CTX, backup_id=backup.id)
    db_backups.MACHINE.begin(db, row_id=backup.id, action='delete')
    backup_mgr.delete_backup(CTX, backup_id=backup.id)
    assert asked == [CTX] * 4
