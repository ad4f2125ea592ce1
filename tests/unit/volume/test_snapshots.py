"""volume/snapshots.py through VolumeManager: create, delete, cascade, revert, volumes from
snapshots, user messages, notifications, and cleanup of snapshot rows left in flight."""

import threading

import pytest
import sqlalchemy as sa

from cinderlike import exception, locks
from cinderlike.api.operations import snapshots as snapshot_ops
from cinderlike.api.operations import volumes as volume_ops
from cinderlike.db import services as db_services
from cinderlike.db import snapshots as db_snapshots
from cinderlike.db import workers as db_workers
from cinderlike.db.models import QuotaUsage, Snapshot
from cinderlike.drivers.volume import base
from cinderlike.volume import recovery
from tests.unit.volume.conftest import (
    add_volume,
    claimed,
    ctx,
    event_ids,
    lock_files,
    notified,
    row,
    usage,
    workers,
)


class RecordingRPC:
    """The API's rpc bundle: scheduler and volume casts recorded, not sent."""

    def __init__(self):
        self.casts = []
        self.scheduler = self.volume = self

    def __getattr__(self, method):
        return lambda ctxt, **kwargs: self.casts.append((method, kwargs))


@pytest.fixture
def rpc():
    return RecordingRPC()


def _available(manager, db, size=1):
    volume = add_volume(db, size=size)
    manager.create_volume(ctx(), volume_id=volume.id, request_spec={}, filter_properties={})
    assert row(db, volume.id).status == 'available'
    return row(db, volume.id)


def _snapshot(manager, db, conf, rpc, volume, *, run=True):
    snapshot = snapshot_ops.create(conf, db, rpc, ctx(), volume_id=volume.id, name='s')
    assert rpc.casts[-1] == ('create_snapshot', {
        'snapshot_id': snapshot.id, 'volume_id': volume.id,
        'request_spec': {'snapshot_id': snapshot.id,
                         'volume_properties': {'size': volume.size}}})
    if run:
        manager.create_snapshot(ctx(), snapshot_id=snapshot.id)
    return snapshot


def _row(db, snapshot_id):
    with db.reader() as s:
        return s.get(Snapshot, snapshot_id)


def test_create_makes_it_available_with_quota_committed(manager, db, conf, rpc):
    volume = _available(manager, db, size=2)
    snapshot = _snapshot(manager, db, conf, rpc, volume)
    stored = _row(db, snapshot.id)
    assert (stored.status, stored.progress, stored.volume_size) == ('available', '100%', 2)
    assert manager.driver.has_snapshot(base.SnapshotRef.of(stored, volume))
    assert usage(db, 'snapshots') == (1, 0) and usage(db, 'snapshots___DEFAULT__') == (1, 0)
    assert usage(db, 'gigabytes') == (4, 0) and workers(db) == []
    assert notified()[-2:] == ['snapshot.create.start', 'snapshot.create.end']


def test_no_snapshot_gb_quota_counts_the_snapshot_only(manager, db, conf, rpc):
    conf.set_override('no_snapshot_gb_quota', True)
    volume = _available(manager, db, size=2)
    _snapshot(manager, db, conf, rpc, volume)
    assert usage(db, 'snapshots') == (1, 0) and usage(db, 'gigabytes') == (2, 0)


def test_a_driver_failure_leaves_error_and_a_user_message(manager, db, conf, rpc):
    volume = _available(manager, db)
    conf.set_override('fake_fail', ['create_snapshot'], group='lvm')
    snapshot = _snapshot(manager, db, conf, rpc, volume)
    assert _row(db, snapshot.id).status == 'error' and workers(db) == []
    assert event_ids(db)[-1] == 'VOLUME_VOLUME_SNAPSHOT_009_013'
    # NOTE: as Cinder, the quota stays used until the user deletes the snapshot.
    assert usage(db, 'snapshots') == (1, 0)


def _delete(manager, db, rpc, snapshot_id, force=False):
    snapshot_ops.delete(db, rpc, ctx(), snapshot_id=snapshot_id, force=force)
    method, kwargs = rpc.casts[-1]
    assert method == 'delete_snapshot' and kwargs['snapshot_id'] == snapshot_id
    manager.delete_snapshot(ctx(), snapshot_id=snapshot_id)


def test_delete_destroys_it_and_gives_the_quota_back(manager, db, conf, rpc):
    volume = _available(manager, db, size=2)
    snapshot = _snapshot(manager, db, conf, rpc, volume)
    _delete(manager, db, rpc, snapshot.id)
    gone = _row(db, snapshot.id)
    assert gone.deleted and gone.status == 'deleted'
    assert not manager.driver.has_snapshot(base.SnapshotRef.of(gone, volume))
    assert usage(db, 'snapshots') == (0, 0) and usage(db, 'gigabytes') == (2, 0)
    assert notified()[-2:] == ['snapshot.delete.start', 'snapshot.delete.end']
    assert not [name for name in lock_files(conf) if snapshot.id in name]


@pytest.mark.parametrize('fail, status, event', [
    ('delete_snapshot_busy', 'available', 'VOLUME_VOLUME_SNAPSHOT_010_015'),
    ('delete_snapshot', 'error_deleting', 'VOLUME_VOLUME_SNAPSHOT_010_016'),
])
def test_a_refused_delete_keeps_the_snapshot_and_its_quota(manager, db, conf, rpc, fail,
                                                           status, event):
    volume = _available(manager, db)
    snapshot = _snapshot(manager, db, conf, rpc, volume)
    conf.set_override('fake_fail', [fail], group='lvm')
    _delete(manager, db, rpc, snapshot.id)
    assert _row(db, snapshot.id).status == status and not _row(db, snapshot.id).deleted
    assert event_ids(db)[-1] == event and usage(db, 'snapshots') == (1, 0)
    assert workers(db) == []
    assert locks.delete_snapshot(snapshot.id) in lock_files(conf)


def test_a_volume_with_snapshots_is_not_deleted_without_cascade(manager, db, conf, rpc):
    volume = _available(manager, db)
    _snapshot(manager, db, conf, rpc, volume)
    with pytest.raises(exception.InvalidVolume, match='have snapshots'):
        volume_ops.delete(db, rpc, ctx(), volume_id=volume.id)
    assert row(db, volume.id).status == 'available'


def test_cascade_deletes_the_snapshots_then_the_volume(manager, db, conf, rpc):
    volume = _available(manager, db, size=2)
    snapshots = [_snapshot(manager, db, conf, rpc, volume) for _ in range(2)]
    volume_ops.delete(db, rpc, ctx(), volume_id=volume.id, cascade=True)
    assert {_row(db, s.id).status for s in snapshots} == {'deleting'}
    manager.delete_volume(ctx(), volume_id=volume.id, cascade=True)
    assert row(db, volume.id).deleted and all(_row(db, s.id).deleted for s in snapshots)
    for resource in ('volumes', 'snapshots', 'gigabytes'):
        assert usage(db, resource) == (0, 0), resource
    assert claimed(db) == 0 and workers(db) == []


def test_cascade_refuses_a_snapshot_in_flight_and_changes_nothing(manager, db, conf, rpc):
    volume = _available(manager, db)
    ready = _snapshot(manager, db, conf, rpc, volume)
    busy = _snapshot(manager, db, conf, rpc, volume, run=False)
    with pytest.raises(exception.InvalidVolume):
        volume_ops.delete(db, rpc, ctx(), volume_id=volume.id, cascade=True)
    assert row(db, volume.id).status == 'available'
    assert (_row(db, ready.id).status, _row(db, busy.id).status) == ('available', 'creating')


def test_cascade_that_cannot_delete_a_snapshot_leaves_the_volume_error_deleting(
        manager, db, conf, rpc):
    volume = _available(manager, db)
    snapshot = _snapshot(manager, db, conf, rpc, volume)
    volume_ops.delete(db, rpc, ctx(), volume_id=volume.id, cascade=True)
    conf.set_override('fake_fail', ['delete_snapshot'], group='lvm')
    manager.delete_volume(ctx(), volume_id=volume.id, cascade=True)
    assert row(db, volume.id).status == 'error_deleting'
    assert _row(db, snapshot.id).status == 'error_deleting'
    assert manager.driver.has_volume(base.VolumeRef.of(volume))


def test_snapshot_of_an_unusable_volume_is_refused_with_nothing_reserved(manager, db, conf,
                                                                        rpc):
    volume = add_volume(db, status='in-use', host=None, claim=False)
    with pytest.raises(exception.InvalidVolume, match='not been scheduled'):
        snapshot_ops.create(conf, db, rpc, ctx(), volume_id=volume.id)
    placed = _available(manager, db)
    volume_ops.reset_status(db, ctx(), volume_id=placed.id, values={'status': 'error'})
    with pytest.raises(exception.InvalidVolume, match='in error status'):
        snapshot_ops.create(conf, db, rpc, ctx(), volume_id=placed.id)
    volume_ops.reset_status(db, ctx(), volume_id=placed.id, values={'status': 'maintenance'})
    with pytest.raises(exception.InvalidVolume, match='maintenance mode'):
        snapshot_ops.create(conf, db, rpc, ctx(), volume_id=placed.id)
    with db.writer() as s:
        s.execute(sa.update(type(row(db, placed.id))).values(status='in-use'))
    with pytest.raises(exception.InvalidVolume, match='must be available, but current'):
        snapshot_ops.create(conf, db, rpc, ctx(), volume_id=placed.id)
    assert rpc.casts == []
    with db.reader() as s:
        assert s.scalar(sa.select(QuotaUsage.in_use + QuotaUsage.reserved).where(
            QuotaUsage.resource == 'snapshots')) in (None, 0)
        assert s.scalar(sa.select(sa.func.count()).select_from(Snapshot)) == 0


def test_force_allows_an_in_use_volume(manager, db, conf, rpc):
    volume = _available(manager, db)
    with db.writer() as s:
        s.execute(sa.update(type(volume)).values(status='in-use'))
    snapshot = snapshot_ops.create(conf, db, rpc, ctx(), volume_id=volume.id,
                                   allow_in_use=True)
    manager.create_snapshot(ctx(), snapshot_id=snapshot.id)
    assert _row(db, snapshot.id).status == 'available'


def test_revert_goes_through_reverting_and_restoring(manager, db, conf, rpc):
    volume = _available(manager, db)
    snapshot = _snapshot(manager, db, conf, rpc, volume)
    volume_ops.revert(db, rpc, ctx(), volume_id=volume.id, snapshot_id=snapshot.id)
    assert (row(db, volume.id).status, _row(db, snapshot.id).status) == (
        'reverting', 'restoring')
    assert rpc.casts[-1][0] == 'revert_to_snapshot'
    manager.revert_to_snapshot(ctx(), volume_id=volume.id, snapshot_id=snapshot.id)
    assert (row(db, volume.id).status, _row(db, snapshot.id).status) == (
        'available', 'available')


def test_a_failed_revert_leaves_the_volume_error_and_the_snapshot_available(
        manager, db, conf, rpc):
    volume = _available(manager, db)
    snapshot = _snapshot(manager, db, conf, rpc, volume)
    volume_ops.revert(db, rpc, ctx(), volume_id=volume.id, snapshot_id=snapshot.id)
    conf.set_override('fake_fail', ['revert_to_snapshot'], group='lvm')
    manager.revert_to_snapshot(ctx(), volume_id=volume.id, snapshot_id=snapshot.id)
    assert (row(db, volume.id).status, _row(db, snapshot.id).status) == (
        'error', 'available')


def test_revert_refusals(manager, db, conf, rpc):
    volume = _available(manager, db)
    with pytest.raises(exception.Invalid, match="doesn't have any snapshots"):
        volume_ops.revert(db, rpc, ctx(), volume_id=volume.id, snapshot_id='x')
    older = _snapshot(manager, db, conf, rpc, volume)
    newer = _snapshot(manager, db, conf, rpc, volume)
    with pytest.raises(exception.Invalid, match='not the latest'):
        volume_ops.revert(db, rpc, ctx(), volume_id=volume.id, snapshot_id=older.id)
    volume_ops.reset_status(db, ctx(), volume_id=volume.id, values={'status': 'error'})
    with pytest.raises(exception.VolumeRevertConflict) as refused:
        volume_ops.revert(db, rpc, ctx(), volume_id=volume.id, snapshot_id=newer.id)
    assert refused.value.code == 409
    volume_ops.reset_status(db, ctx(), volume_id=volume.id, values={'status': 'available'})
    snapshot_ops.reset_status(db, ctx(), snapshot_id=newer.id, status='error')
    with pytest.raises(exception.SnapshotRevertConflict):
        volume_ops.revert(db, rpc, ctx(), volume_id=volume.id, snapshot_id=newer.id)
    # NOTE: the failed CAS of the snapshot rolled the volume's back too.
    assert row(db, volume.id).status == 'available'


def test_a_volume_from_a_snapshot_is_made_by_the_driver_from_it(manager, db, conf, rpc):
    volume = _available(manager, db)
    snapshot = _snapshot(manager, db, conf, rpc, volume)
    made = add_volume(db, size=3, snapshot_id=snapshot.id)
    manager.create_volume(ctx(), volume_id=made.id, request_spec={'snapshot_id': snapshot.id},
                          filter_properties={})
    assert row(db, made.id).status == 'available'
    assert manager.driver.has_volume(base.VolumeRef.of(row(db, made.id)))


def _dead_peer_holds(db, snapshot, status) -> int:
    peer = db_services.register(db, host='node2@lvm', binary='cinder-volume',
                                topic='cinder-volume', availability_zone='nova')
    db_workers.begin(db, resource_type='Snapshot', resource_id=snapshot.id, status=status,
                     service_id=peer.id)
    return peer.id


def test_cleanup_settles_snapshot_rows_as_cinder(manager, db, conf, rpc):
    volume = _available(manager, db)
    creating = _snapshot(manager, db, conf, rpc, volume, run=False)
    deleting = _snapshot(manager, db, conf, rpc, volume)
    db_snapshots.MACHINE.begin(db, row_id=deleting.id, action='delete')
    _dead_peer_holds(db, creating, 'creating')
    peer = _dead_peer_holds(db, deleting, 'deleting')
    taken = recovery.do_cleanup(manager, ctx(), recovery.CleanupRequest(service_ids=(peer,)))
    assert taken == 2 and workers(db) == []
    assert _row(db, creating.id).status == 'error'
    assert _row(db, deleting.id).deleted and usage(db, 'snapshots') == (1, 0)


def test_a_displaced_snapshot_create_cannot_overwrite_the_peers_error(manager, db, conf, rpc):
    volume = _available(manager, db)
    snapshot = _snapshot(manager, db, conf, rpc, volume, run=False)
    entered, release = threading.Event(), threading.Event()
    real = manager.driver.create_snapshot

    def slow(ref):
        entered.set()
        assert release.wait(30)
        return real(ref)
    manager.driver.create_snapshot = slow
    worker = threading.Thread(target=manager.create_snapshot, args=(ctx(),),
                              kwargs={'snapshot_id': snapshot.id})
    worker.start()
    assert entered.wait(30)
    taken = recovery.do_cleanup(manager, ctx(), recovery.CleanupRequest(
        service_ids=(manager.service_id,)))
    assert taken == 1 and _row(db, snapshot.id).status == 'error'
    release.set()
    worker.join(30)
    assert _row(db, snapshot.id).status == 'error' and workers(db) == []
