"""cinderlike-api: group snapshot rules — checks, quota (each member snapshot counts), state
CAS via db/, the RPC casts (Cinder's group snapshot half of cinder/group/api.py).

The group snapshot, a snapshot per member and their quota are written in one transaction
under the group's row lock, so a refused request writes nothing and holds no quota.
"""

from oslo_log import log as logging

from cinderlike import exception, quota, rpc
from cinderlike.api import casting
from cinderlike.api.operations import groups as group_operations
from cinderlike.api.operations import snapshots as snapshot_operations
from cinderlike.api.operations.volumes import scope
from cinderlike.db import group_snapshots as db_group_snapshots
from cinderlike.db import groups as db_groups
from cinderlike.db import replication as db_replication
from cinderlike.db import snapshots as db_snapshots
from cinderlike.db import volumes as db_volumes
from cinderlike.states import groups as group_states
from cinderlike.states import volumes as volume_states

LOG = logging.getLogger(__name__)

_SNAPSHOTTABLE = (volume_states.Status.AVAILABLE, volume_states.Status.IN_USE)


class Notifier:
    """The API's `groupsnapshots.reset_status.*` events (publisher
    `groupSnapshotStatusUpdate`)."""

    def __init__(self, conf):
        self.status = rpc.get_notifier(conf,
                                       publisher_id=f'groupSnapshotStatusUpdate.{conf.host}')


def get(db, ctx, *, group_snapshot_id: str):
    """:raises GroupSnapshotNotFound: also for another project's, as Cinder."""
    return db_group_snapshots.get(db, group_snapshot_id=group_snapshot_id,
                                  project_id=scope(ctx))


def _deltas(conf, db, volumes) -> dict[str, int]:
    """The quota of a snapshot of every member (snapshots and gigabytes, per type)."""
    names = db_volumes.get_type_names(db, type_ids={v.volume_type_id for v in volumes})
    total: dict[str, int] = {}
    for volume in volumes:
        for key, value in snapshot_operations.snapshot_deltas(
                conf, size=volume.size, type_name=names.get(volume.volume_type_id)).items():
            total[key] = total.get(key, 0) + value
    return total


def create(conf, db, rpc_clients, ctx, *, group_id: str, name=None, description=None):
    """Insert a `creating` group snapshot with one snapshot per member and cast it to the
    group's backend; the new row.

    :raises GroupNotFound, Invalid, InvalidGroup, InvalidVolume, SnapshotLimitExceeded,
        VolumeSizeExceedsAvailableQuota, InvalidInput: (frozen backend)
    """
    group = group_operations.get(db, ctx, group_id=group_id)
    group_operations.check_not_cgsnapshot_type(group.group_type_id,
                                               group_operations.reserved_type_id(db))
    db_replication.assert_not_frozen(db, host=group.host, cluster_name=group.cluster_name)
    with db.writer() as s:
        locked = db_groups.lock(s, group_id=group_id)
        if locked is None:
            raise exception.GroupNotFound(group_id=group_id)
        if locked.status != group_states.Status.AVAILABLE:
            raise exception.InvalidGroup(reason='Group status must be available.')
        ids = db_groups.volume_ids(db, group_ids=[group_id], session=s)[group_id]
        # NOTE(race): each member's row is locked as a single snapshot's volume is.
        volumes = [db_snapshots.lock_volume(s, volume_id=volume_id) for volume_id in ids]
        for volume in volumes:
            snapshot_operations.check_volume(volume, _SNAPSHOTTABLE)
        deltas = _deltas(conf, db, volumes)
        reservations = (quota.reserve(db, ctx, conf=conf, project_id=ctx.project_id,
                                      deltas=deltas, session=s) if deltas else [])
        row, _snapshots = db_group_snapshots.create(db, session=s, volumes=volumes, values={
            'group_id': group_id, 'user_id': ctx.user_id, 'project_id': ctx.project_id,
            'name': name, 'description': description, 'group_type_id': locked.group_type_id})
        quota.commit(db, ctx, reservations, session=s)
    casting.send(lambda: rpc_clients.volume.create_group_snapshot(
        ctx, group_snapshot_id=row.id, host=group.host, cluster_name=group.cluster_name),
        undo=lambda: db_group_snapshots.undo_create(
            db, group_snapshot_id=row.id, project_id=row.project_id, deltas=deltas),
        resource='GroupSnapshot', resource_id=row.id, what='create_group_snapshot')
    return row


def delete(db, rpc_clients, ctx, *, group_snapshot_id: str) -> None:
    """CAS into `deleting` (members too) and cast to the group's backend.

    :raises GroupSnapshotNotFound, InvalidGroupSnapshot, InvalidInput: (frozen backend)
    """
    gsnap = get(db, ctx, group_snapshot_id=group_snapshot_id)
    group = db_groups.get(db, group_id=gsnap.group_id)
    db_replication.assert_not_frozen(db, host=group.host, cluster_name=group.cluster_name)
    _row, left = db_group_snapshots.begin_delete(db, group_snapshot_id=group_snapshot_id,
                                                 project_id=scope(ctx))
    casting.send(lambda: rpc_clients.volume.delete_group_snapshot(
        ctx, group_snapshot_id=group_snapshot_id, host=group.host,
        cluster_name=group.cluster_name),
        undo=lambda: db_group_snapshots.undo_delete(
            db, group_snapshot_id=group_snapshot_id, statuses=left),
        resource='GroupSnapshot', resource_id=group_snapshot_id,
        what='delete_group_snapshot')


def reset_status(db, notifier, ctx, *, group_snapshot_id: str, status: str) -> None:
    """Admin reset-state (3.19): a plain write, as Cinder, with its notifications.

    :raises GroupSnapshotNotFound:
    """
    event = {'id': group_snapshot_id, 'update': status}
    notifier.status.info(ctx, 'groupsnapshots.reset_status.start', event)
    try:
        db_group_snapshots.MACHINE.reset(db, row_id=group_snapshot_id, values={'status': status})
    except exception.GroupSnapshotNotFound as err:
        notifier.status.error(ctx, 'groupsnapshots.reset_status',
                              {'error_message': err.msg, 'id': group_snapshot_id})
        raise
    notifier.status.info(ctx, 'groupsnapshots.reset_status.end', event)
