"""cinderlike-volume: create, delete and revert to snapshots (Cinder's create_snapshot,
delete_snapshot and revert_to_snapshot), each settled in one fenced step (db/settle.py).
"""

from oslo_log import log as logging

from cinderlike import exception, messages, quota
from cinderlike.db import settle as db_settle
from cinderlike.db import snapshots as db_snapshots
from cinderlike.db import volumes as db_volumes
from cinderlike.drivers.volume import base
from cinderlike.states import snapshots as states

LOG = logging.getLogger(__name__)

S = states.Status


def _ref(manager, snapshot) -> base.SnapshotRef:
    volume = db_volumes.get(manager.db, volume_id=snapshot.volume_id)
    return base.SnapshotRef.of(snapshot, volume)


def _message(manager, ctx, snapshot, action, detail, error) -> None:
    messages.create(manager.db, ctx, conf=manager.conf, action=action,
                    resource_type=messages.Resource.VOLUME_SNAPSHOT,
                    resource_uuid=snapshot.id, detail=detail, exception=error)


def failed(snapshot) -> db_settle.Outcome:
    """A create that ends here: `error` (the quota stays used until the user deletes it)."""
    return db_settle.Outcome(action='create', error=True)


def create_snapshot(manager, ctx, *, snapshot_id: str) -> bool:
    """Take the snapshot on the backend; True when it became available."""
    snapshot, hold = manager.hold(db_snapshots.MACHINE, row_id=snapshot_id, status=S.CREATING)
    if hold is None:
        return False
    manager.snapshot_notifier.info(ctx, snapshot, 'create.start')
    error = None
    try:
        manager.require_driver()
        update = manager.driver.create_snapshot(_ref(manager, snapshot)) or {}
    except Exception as driver_error:
        LOG.exception('Snapshot %s: driver failed to create it', snapshot_id)
        error = driver_error
        outcome = failed(snapshot)
    else:
        outcome = db_settle.Outcome(action='create',
                                    values=dict(update, progress=states.DONE_PROGRESS))
    settled = db_settle.settle(manager.db, db_snapshots.MACHINE, row=snapshot, hold=hold,
                               outcome=outcome)
    if error is not None and settled is not db_settle.Settled.FENCED:
        _message(manager, ctx, snapshot, messages.Action.SNAPSHOT_CREATE,
                 messages.Detail.SNAPSHOT_CREATE_ERROR, error)
    if error is not None or settled is not db_settle.Settled.DONE:
        return False
    manager.snapshot_notifier.info(
        ctx, db_snapshots.get(manager.db, snapshot_id=snapshot_id), 'create.end')
    return True


def _gone(manager, snapshot, action: str = 'delete') -> db_settle.Outcome:
    """The delete's (or unmanage's) outcome: row destroyed and its quota usage given back."""
    type_name = db_volumes.get_type_names(manager.db, type_ids={snapshot.volume_type_id}).get(
        snapshot.volume_type_id)
    deltas = quota.volume_deltas(size=snapshot.volume_size or 0, volume_type_name=type_name,
                                 snapshot=True, gigabytes=not manager.conf.no_snapshot_gb_quota)
    return db_settle.Outcome(action=action, destroy=True,
                             release_usage={k: -v for k, v in deltas.items()})


def delete_snapshot(manager, ctx, *, snapshot_id: str, unmanage_only: bool = False) -> bool:
    """Remove the snapshot from the backend and the database; True when it is gone.

    SnapshotIsBusy puts it back to `available`; any other failure leaves it
    `error_deleting`. With *unmanage_only* (an `unmanaging` snapshot) the backend keeps it.
    """
    action = 'unmanage' if unmanage_only else 'delete'
    status = S.UNMANAGING if unmanage_only else S.DELETING
    snapshot, hold = manager.hold(db_snapshots.MACHINE, row_id=snapshot_id, status=status)
    if hold is None:
        return False
    manager.snapshot_notifier.info(ctx, snapshot, f'{action}.start')
    detail = error = None
    try:
        manager.require_driver()
        if unmanage_only:
            manager.driver.unmanage_snapshot(_ref(manager, snapshot))
        else:
            manager.driver.delete_snapshot(_ref(manager, snapshot))
    except exception.SnapshotIsBusy as busy:
        LOG.error('Snapshot %s is busy on the backend; it stays available', snapshot_id)
        outcome = db_settle.Outcome(action=action, status=S.AVAILABLE)
        detail, error = messages.Detail.SNAPSHOT_IS_BUSY, busy
    except Exception as driver_error:
        LOG.exception('Snapshot %s: driver failed to %s it', snapshot_id, action)
        outcome = db_settle.Outcome(action=action, error=True)
        detail, error = messages.Detail.SNAPSHOT_DELETE_ERROR, driver_error
    else:
        outcome = _gone(manager, snapshot, action)
    settled = db_settle.settle(manager.db, db_snapshots.MACHINE, row=snapshot, hold=hold,
                               outcome=outcome)
    if error is not None and settled is not db_settle.Settled.FENCED:
        _message(manager, ctx, snapshot, messages.Action.SNAPSHOT_DELETE, detail, error)
    if settled is not db_settle.Settled.DONE or not outcome.destroy:
        return False
    manager.snapshot_notifier.info(ctx, snapshot, f'{action}.end')
    return True


def revert_to_snapshot(manager, ctx, *, volume_id: str, snapshot_id: str) -> bool:
    """Revert a `reverting` volume to its `restoring` snapshot; True when it did.

    Success returns both to `available`; a driver failure leaves the volume `error` and the
    snapshot `available`, as Cinder's.
    """
    volume = db_volumes.get(manager.db, volume_id=volume_id)
    snapshot = db_snapshots.get(manager.db, snapshot_id=snapshot_id)
    failure = None
    try:
        manager.require_driver()
        manager.driver.revert_to_snapshot(base.VolumeRef.of(volume),
                                          base.SnapshotRef.of(snapshot, volume))
    except Exception as error:
        LOG.exception('Volume %s: driver failed to revert it to snapshot %s', volume_id,
                      snapshot_id)
        failure = error
    with manager.db.writer() as s:
        db_volumes.MACHINE.finish(manager.db, row_id=volume_id, action='revert',
                                  error=failure is not None, session=s)
        db_snapshots.MACHINE.finish(manager.db, row_id=snapshot_id, action='revert', session=s)
    if failure is not None:
        # NOTE(cinder): Cinder has no user message for a failed revert; the volume's
        # `error` status and the log say it.
        return False
    LOG.info('Volume %s reverted to snapshot %s', volume_id, snapshot_id)
    return True


def delete_cascaded(manager, ctx, *, volume_id: str) -> bool:
    """The snapshots a cascade delete moved to `deleting`, deleted first; True when none
    is left."""
    for snapshot in db_snapshots.of_volume(manager.db, volume_id=volume_id):
        if snapshot.status == S.DELETING:
            manager.delete_snapshot(ctx, snapshot_id=snapshot.id)
    left = db_snapshots.of_volume(manager.db, volume_id=volume_id)
    if left:
        LOG.error('Volume %s: %d snapshots could not be deleted with it', volume_id, len(left))
    return not left
