"""cinderlike-volume: create and delete group snapshots (Cinder's create_group_snapshot and
delete_group_snapshot).

A group snapshot takes every member's delete lock (sorted, so two group snapshots never
deadlock) and asks the driver for all the member snapshots as one operation; the group
snapshot and its members then settle together, fenced on the group snapshot's workers row.
Deleting goes member by member through the snapshot delete path (quota given back per
member), then the group snapshot.
"""

import contextlib

from oslo_log import log as logging

from cinderlike import exception, locks
from cinderlike.db import group_snapshots as db_group_snapshots
from cinderlike.db import settle as db_settle
from cinderlike.db import volumes as db_volumes
from cinderlike.drivers.volume import base
from cinderlike.states import group_snapshots as states
from cinderlike.states import snapshots as snapshot_states

LOG = logging.getLogger(__name__)

S = states.Status


def _take(manager, gsnap, snapshots: list) -> dict[str, dict]:
    """The driver's snapshots of every member, under every member's lock: {id: update}."""
    refs = [base.SnapshotRef.of(snap, db_volumes.get(manager.db, volume_id=snap.volume_id))
            for snap in snapshots]
    with contextlib.ExitStack() as stack:
        for volume_id in sorted({snap.volume_id for snap in snapshots}):
            stack.enter_context(manager.coordinator.get_lock(locks.delete_volume(volume_id)))
        updates = manager.driver.create_group_snapshot(gsnap.id, refs)
    return {snap.id: update or {} for snap, update in zip(snapshots, updates, strict=True)}


def create_group_snapshot(manager, ctx, *, group_snapshot_id: str) -> bool:
    """Snapshot every member on the backend; True when the group snapshot is available.

    A driver failure leaves the group snapshot and every member `error` (their quota stays
    used until they are deleted, as for a single snapshot).
    """
    gsnap, hold = manager.hold(db_group_snapshots.MACHINE, row_id=group_snapshot_id,
                               status=S.CREATING)
    if hold is None:
        return False
    manager.group_snapshot_notifier.info(ctx, gsnap, 'create.start')
    snapshots = [snap for snap in db_group_snapshots.members(
        manager.db, group_snapshot_id=group_snapshot_id)
        if snap.status == snapshot_states.Status.CREATING]
    error = False
    try:
        manager.require_driver()
        updates = _take(manager, gsnap, snapshots)
    except Exception:
        LOG.exception('Group snapshot %s: driver failed to create it', group_snapshot_id)
        error, updates = True, {snap.id: {} for snap in snapshots}
    with manager.db.writer() as s:
        settled = db_settle.settle(manager.db, db_group_snapshots.MACHINE, row=gsnap,
                                   hold=hold, outcome=db_settle.Outcome(action='create',
                                                                        error=error),
                                   session=s)
        if settled is db_settle.Settled.DONE:
            db_group_snapshots.finish_members(manager.db, s, group_snapshot_id=gsnap.id,
                                              updates=updates, error=error)
    if error or settled is not db_settle.Settled.DONE:
        return False
    manager.group_snapshot_notifier.info(
        ctx, db_group_snapshots.get(manager.db, group_snapshot_id=group_snapshot_id),
        'create.end')
    return True


def delete_group_snapshot(manager, ctx, *, group_snapshot_id: str) -> bool:
    """Delete every member snapshot, then the group snapshot; True when it is gone.

    A member that could not be deleted leaves the group snapshot `error_deleting`.
    """
    gsnap, hold = manager.hold(db_group_snapshots.MACHINE, row_id=group_snapshot_id,
                               status=S.DELETING)
    if hold is None:
        return False
    manager.group_snapshot_notifier.info(ctx, gsnap, 'delete.start')
    try:
        manager.require_driver()
        for snap in db_group_snapshots.members(manager.db, group_snapshot_id=gsnap.id):
            manager.delete_snapshot(ctx, snapshot_id=snap.id)
        if db_group_snapshots.members(manager.db, group_snapshot_id=gsnap.id):
            raise exception.VolumeDriverException(
                message=f'member snapshots of group snapshot {gsnap.id} remain')
    except Exception:
        LOG.exception('Group snapshot %s: failed to delete it', group_snapshot_id)
        outcome = db_settle.Outcome(action='delete', error=True)
    else:
        outcome = db_settle.Outcome(action='delete', destroy=True)
    settled = db_settle.settle(manager.db, db_group_snapshots.MACHINE, row=gsnap, hold=hold,
                               outcome=outcome)
    if not outcome.destroy or settled is not db_settle.Settled.DONE:
        return False
    manager.group_snapshot_notifier.info(ctx, gsnap, 'delete.end')
    return True
