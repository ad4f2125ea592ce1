"""cinderlike-volume: create and delete generic volume groups (Cinder's create_group and
delete_group), each settled in one fenced step (db/settle.py).

A generic group is the database's: the driver is told (it may keep backend state) and
its member volumes are deleted one by one, each through the volume delete path with its
own quota, capacity claim and workers row.
"""

from oslo_log import log as logging

from cinderlike import exception, locks
from cinderlike.db import groups as db_groups
from cinderlike.db import settle as db_settle
from cinderlike.db import volumes as db_volumes
from cinderlike.drivers.volume import base
from cinderlike.states import groups as states
from cinderlike.states import volumes as volume_states
from cinderlike.volume import delete

LOG = logging.getLogger(__name__)

S = states.Status


def create_group(manager, ctx, *, group_id: str) -> bool:
    """Create the group on the backend; True when it became available."""
    group, hold = manager.hold(db_groups.MACHINE, row_id=group_id, status=S.CREATING)
    if hold is None:
        return False
    manager.group_notifier.info(ctx, group, 'create.start')
    try:
        manager.require_driver()
        update = manager.driver.create_group(group_id) or {}
    except Exception:
        LOG.exception('Group %s: driver failed to create it', group_id)
        outcome = db_settle.Outcome(action='create', error=True)
    else:
        outcome = db_settle.Outcome(action='create', values=update)
    settled = db_settle.settle(manager.db, db_groups.MACHINE, row=group, hold=hold,
                               outcome=outcome)
    if outcome.error or settled is not db_settle.Settled.DONE:
        return False
    manager.group_notifier.info(ctx, db_groups.get(manager.db, group_id=group_id),
                                'create.end')
    return True


def update_group(manager, ctx, *, group_id: str, add: list[str], remove: list[str]) -> bool:
    """Tell the driver, then record the membership with the group's return to `available`,
    in one fenced transaction; True when done. A driver failure leaves the group `error`
    and the membership as it was."""
    group, hold = manager.hold(db_groups.MACHINE, row_id=group_id, status=S.UPDATING)
    if hold is None:
        return False
    manager.group_notifier.info(ctx, group, 'update.start')
    try:
        manager.require_driver()
        manager.driver.update_group(
            group_id, [base.VolumeRef.of(db_volumes.get(manager.db, volume_id=v)) for v in add],
            [base.VolumeRef.of(db_volumes.get(manager.db, volume_id=v)) for v in remove])
    except Exception:
        LOG.exception('Group %s: driver failed to update it', group_id)
        outcome = db_settle.Outcome(action='update', error=True)
    else:
        outcome = db_settle.Outcome(action='update')
    with manager.db.writer() as s:
        settled = db_settle.settle(manager.db, db_groups.MACHINE, row=group, hold=hold,
                                   outcome=outcome, session=s)
        if settled is db_settle.Settled.DONE and not outcome.error:
            db_groups.change_members(s, group_id=group_id, add=add, remove=remove)
    if outcome.error or settled is not db_settle.Settled.DONE:
        return False
    manager.group_notifier.info(ctx, db_groups.get(manager.db, group_id=group_id),
                                'update.end')
    return True


def create_group_from_src(manager, ctx, *, group_id: str) -> bool:
    """Make each member from its source (a snapshot of the group snapshot, or a volume of
    the source group) through the volume create path, then settle the group; True when it
    and every member became available. A member that fails is `error`, and so is the
    group."""
    group, hold = manager.hold(db_groups.MACHINE, row_id=group_id, status=S.CREATING)
    if hold is None:
        return False
    manager.group_notifier.info(ctx, group, 'create.start')
    made = True
    for volume_id in db_groups.volume_ids(manager.db, group_ids=[group_id])[group_id]:
        volume = db_volumes.get(manager.db, volume_id=volume_id)
        spec = ({'snapshot_id': volume.snapshot_id} if volume.snapshot_id
                else {'source_volid': volume.source_volid})
        manager.create_volume(ctx, volume_id=volume_id, request_spec=spec,
                              filter_properties={}, allow_reschedule=False)
        made = made and (db_volumes.get(manager.db, volume_id=volume_id).status ==
                         volume_states.Status.AVAILABLE)
    outcome = db_settle.Outcome(action='create', error=not made)
    settled = db_settle.settle(manager.db, db_groups.MACHINE, row=group, hold=hold,
                               outcome=outcome)
    if not made or settled is not db_settle.Settled.DONE:
        return False
    manager.group_notifier.info(ctx, db_groups.get(manager.db, group_id=group_id),
                                'create.end')
    return True


def _delete_members(manager, ctx, group_id: str) -> bool:
    """Delete every member (all `deleting`, as the API left them); True when none is left."""
    members = db_groups.volume_ids(manager.db, group_ids=[group_id])[group_id]
    for volume_id in members:
        with manager.coordinator.get_lock(locks.delete_volume(volume_id)):
            delete.delete_volume(manager, ctx, volume_id=volume_id)
    return not db_groups.volume_ids(manager.db, group_ids=[group_id])[group_id]


def delete_group(manager, ctx, *, group_id: str) -> bool:
    """Delete the members, then the group (its `groups` quota given back); True when gone.

    A member that could not be deleted leaves the group `error_deleting`.
    """
    group, hold = manager.hold(db_groups.MACHINE, row_id=group_id, status=S.DELETING)
    if hold is None:
        return False
    manager.group_notifier.info(ctx, group, 'delete.start')
    try:
        manager.require_driver()
        if not _delete_members(manager, ctx, group_id):
            raise exception.VolumeDriverException(
                message=f'member volumes of group {group_id} remain')
        manager.driver.delete_group(group_id)
    except Exception:
        LOG.exception('Group %s: failed to delete it', group_id)
        outcome = db_settle.Outcome(action='delete', error=True)
    else:
        outcome = db_settle.Outcome(action='delete', destroy=True,
                                    release_usage={'groups': -1})
    settled = db_settle.settle(manager.db, db_groups.MACHINE, row=group, hold=hold,
                               outcome=outcome)
    if not outcome.destroy or settled is not db_settle.Settled.DONE:
        return False
    manager.group_notifier.info(ctx, group, 'delete.end')
    return True
