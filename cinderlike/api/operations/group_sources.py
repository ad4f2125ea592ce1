"""cinderlike-api: a group created from a group snapshot or from a source group (3.14,
Cinder's create_from_src).

The new group and one volume per source member are written in one transaction, under the
source's row lock (the lock its delete takes), with the `groups` and volume quotas and the
capacity claim on the source's pool: the volumes are made where their sources are, so no
scheduler places them. A refusal writes nothing and holds no quota.
"""

from oslo_log import log as logging

from cinderlike import exception, quota
from cinderlike.api import casting
from cinderlike.api.operations import groups as group_operations
from cinderlike.api.operations.volumes import scope
from cinderlike.db import group_snapshots as db_group_snapshots
from cinderlike.db import groups as db_groups
from cinderlike.db import pools as db_pools
from cinderlike.db import volumes as db_volumes
from cinderlike.db.models import utcnow
from cinderlike.states import group_snapshots as gs_states
from cinderlike.states import groups as group_states
from cinderlike.states import snapshots as snapshot_states
from cinderlike.states import volumes as volume_states

LOG = logging.getLogger(__name__)

_SOURCE_VOLUME = (volume_states.Status.AVAILABLE, volume_states.Status.IN_USE)


def _sources(db, s, *, group_snapshot_id, source_group_id):
    """(source group, [(source snapshot or None, source volume)]) read under the source's
    row lock. :raises GroupSnapshotNotFound, GroupNotFound, InvalidGroup, InvalidSnapshot,
    InvalidVolume:"""
    if group_snapshot_id:
        gsnap = db_group_snapshots.lock(s, group_snapshot_id=group_snapshot_id)
        if gsnap is None:
            raise exception.GroupSnapshotNotFound(group_snapshot_id=group_snapshot_id)
        if gsnap.status != gs_states.Status.AVAILABLE:
            raise exception.InvalidGroup(
                reason=f'Group snapshot {gsnap.id} status must be available.')
        pairs = []
        for snap in db_group_snapshots.members(db, group_snapshot_id=gsnap.id, session=s):
            if snap.status != snapshot_states.Status.AVAILABLE:
                raise exception.InvalidSnapshot(
                    reason="Originating snapshot status must be one of 'available' values")
            pairs.append((snap, db_volumes.get_any(db, volume_id=snap.volume_id, session=s)))
        return db_groups.get(db, group_id=gsnap.group_id, session=s), pairs
    source = db_groups.lock(s, group_id=source_group_id)
    if source is None:
        raise exception.GroupNotFound(group_id=source_group_id)
    if source.status != group_states.Status.AVAILABLE:
        raise exception.InvalidGroup(reason=f'Source group {source.id} status must be '
                                            'available.')
    volumes = [db_volumes.get(db, volume_id=volume_id, session=s) for volume_id in
               db_groups.volume_ids(db, group_ids=[source.id], session=s)[source.id]]
    for volume in volumes:
        if volume.status not in _SOURCE_VOLUME:
            raise exception.InvalidVolume(
                reason="Originating source volume status must be one of "
                       f"'{', '.join(_SOURCE_VOLUME)}' values")
    return source, [(None, volume) for volume in volumes]


def _deltas(db, pairs) -> dict[str, int]:
    names = db_volumes.get_type_names(db, type_ids={v.volume_type_id for _s, v in pairs})
    total = {'groups': 1}
    for snap, volume in pairs:
        size = snap.volume_size if snap is not None else volume.size
        for key, value in quota.volume_deltas(
                size=size, volume_type_name=names.get(volume.volume_type_id)).items():
            total[key] = total.get(key, 0) + value
    return total


def _claim(db, s, group, pairs) -> dict[str, int]:
    """Each new volume's capacity on its source's pool (Cinder's validate_host_capacity);
    the gigabytes claimed by pool.

    :raises InvalidGroup: a pool cannot take them.
    """
    wanted: dict[str, int] = {}
    for snap, volume in pairs:
        pool = db_pools.pool_of(volume)
        wanted[pool] = wanted.get(pool, 0) + (snap.volume_size if snap else volume.size)
    for pool, size in sorted(wanted.items()):
        if not db_pools.claim(db, pool=pool, size_gb=size, session=s):
            raise exception.InvalidGroup(reason=f'No valid host to create group {group.id}.')
    return wanted



def create_from_src(conf, db, rpc_clients, ctx, *, name=None, description=None,
                    group_snapshot_id=None, source_group_id=None):
    """Insert the group (`creating`) and its volumes, cast to the source's backend.

    :raises GroupSnapshotNotFound, GroupNotFound, Invalid, InvalidGroup, InvalidSnapshot,
        InvalidVolume, OverQuota:
    """
    if group_snapshot_id:
        gsnap = db_group_snapshots.get(db, group_snapshot_id=group_snapshot_id,
                                       project_id=scope(ctx))
        type_id = gsnap.group_type_id
    else:
        type_id = group_operations.get(db, ctx, group_id=source_group_id).group_type_id
    group_operations.check_not_cgsnapshot_type(type_id, group_operations.reserved_type_id(db))
    with db.writer() as s:
        source, pairs = _sources(db, s, group_snapshot_id=group_snapshot_id,
                                 source_group_id=source_group_id)
        deltas = _deltas(db, pairs)
        reservations = quota.reserve(db, ctx, conf=conf, project_id=ctx.project_id,
                                     deltas=deltas, session=s)
        group = db_groups.create(db, session=s, volume_type_ids=db_groups.volume_type_ids(
            db, group_ids=[source.id], session=s)[source.id], values={
                'user_id': ctx.user_id, 'project_id': ctx.project_id, 'name': name,
                'description': description, 'group_type_id': source.group_type_id,
                'availability_zone': source.availability_zone, 'host': source.host,
                'cluster_name': source.cluster_name, 'group_snapshot_id': group_snapshot_id,
                'source_group_id': source_group_id, 'replication_status': 'disabled'})
        claimed = _claim(db, s, group, pairs)
        for snap, volume in pairs:
            db_volumes.create(db, session=s, values={
                'size': snap.volume_size if snap is not None else volume.size,
                'user_id': ctx.user_id, 'project_id': ctx.project_id,
                'availability_zone': source.availability_zone,
                'status': volume_states.Status.CREATING,
                'attach_status': volume_states.AttachStatus.DETACHED,
                'volume_type_id': volume.volume_type_id, 'group_id': group.id,
                'snapshot_id': snap.id if snap is not None else None,
                'source_volid': None if snap is not None else volume.id,
                'host': volume.host, 'cluster_name': volume.cluster_name,
                'scheduled_at': utcnow(), 'replication_status': 'disabled',
                'display_name': volume.display_name})
        quota.commit(db, ctx, reservations, session=s)
    casting.send(lambda: rpc_clients.volume.create_group_from_src(
        ctx, group_id=group.id, host=group.host, cluster_name=group.cluster_name),
        undo=lambda: db_groups.undo_create(db, group=group, deltas=deltas, claimed=claimed,
                                           unplaced=False),
        resource='Group', resource_id=group.id, what='create_group_from_src')
    return group
