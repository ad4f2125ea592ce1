"""cinderlike-api: snapshot business rules — checks, quota, state CAS via db/, the RPC casts.

Cinder's volume/api.py for snapshots. A snapshot row is inserted `creating` while its volume
row is locked in an allowed status, with its quota committed in that same transaction, so a
refused or lost request writes nothing and holds no quota.
"""

from oslo_log import log as logging

from cinderlike import exception, quota
from cinderlike.api import casting
from cinderlike.api.operations.volumes import scope
from cinderlike.db import replication as db_replication
from cinderlike.db import settle as db_settle
from cinderlike.db import snapshots as db_snapshots
from cinderlike.db import volumes as db_volumes
from cinderlike.db import workers as db_workers
from cinderlike.states import snapshots as states
from cinderlike.states import volumes as volume_states

LOG = logging.getLogger(__name__)

V = volume_states.Status


def get(db, ctx, *, snapshot_id: str):
    """:raises SnapshotNotFound: also for another project's snapshot, as Cinder."""
    return db_snapshots.get(db, snapshot_id=snapshot_id, project_id=scope(ctx))


def check_volume(volume, valid: tuple[str, ...]) -> None:
    """Cinder's _create_snapshot_in_db_validate and status check, in its order.

    :raises InvalidVolume:
    """
    if not volume.host:
        raise exception.InvalidVolume(reason='The snapshot cannot be created because volume '
                                             'has not been scheduled to any host.')
    if volume.status == V.MAINTENANCE:
        raise exception.InvalidVolume(reason='The snapshot cannot be created when the volume '
                                             'is in maintenance mode.')
    if volume_states.migrating(volume.migration_status):
        raise exception.InvalidVolume(
            reason='Snapshot cannot be created while volume is migrating.')
    if volume.status == V.ERROR:
        raise exception.InvalidVolume(reason='The snapshot cannot be created when the volume '
                                             'is in error status.')
    if volume.status not in valid:
        raise exception.InvalidVolume(
            reason=f"Volume {volume.id} status must be {', '.join(valid)}, but current "
                   f'status is: {volume.status}.')


def snapshot_deltas(conf, *, size: int, type_name: str | None) -> dict[str, int]:
    """A snapshot's quota: snapshots (+ gigabytes unless no_snapshot_gb_quota), per type."""
    return quota.volume_deltas(size=size, volume_type_name=type_name, snapshot=True,
                               gigabytes=not conf.no_snapshot_gb_quota)


def create(conf, db, rpc, ctx, *, volume_id: str, name: str | None = None,
           description: str | None = None, metadata: dict | None = None,
           allow_in_use: bool = False):
    """Insert a `creating` snapshot of the volume and cast to the scheduler; the new row.

    *allow_in_use* is `force` (or 3.66). :raises VolumeNotFound, InvalidVolume,
    SnapshotLimitExceeded, VolumeSizeExceedsAvailableQuota, InvalidInput (frozen backend),
    TemporarilyUnavailable (the cast could not be sent; nothing is left):
    """
    volume = db_volumes.get(db, volume_id=volume_id, project_id=scope(ctx))
    db_replication.assert_not_frozen(db, host=volume.host, cluster_name=volume.cluster_name)
    snapshot, hold, deltas = insert(conf, db, ctx, volume_id=volume_id, name=name,
                                    description=description, metadata=metadata,
                                    allow_in_use=allow_in_use, with_worker=True)
    spec = {'snapshot_id': snapshot.id, 'volume_properties': {'size': snapshot.volume_size}}
    undo = db_settle.Outcome(action='create', destroy=True, release_usage={
        resource: -amount for resource, amount in deltas.items()})
    casting.send(lambda: rpc.scheduler.create_snapshot(
        ctx, snapshot_id=snapshot.id, volume_id=volume_id, request_spec=spec),
        undo=lambda: casting.undone(db_settle.settle(
            db, db_snapshots.MACHINE, row=snapshot, hold=hold, outcome=undo)),
        resource='Snapshot', resource_id=snapshot.id, what='create_snapshot to the scheduler')
    return snapshot


def insert(conf, db, ctx, *, volume_id: str, name: str | None, description: str | None,
           metadata: dict | None, allow_in_use: bool, with_worker: bool):
    """The `creating` row, inserted under the volume's row lock with its quota committed
    (Cinder's create_snapshot_in_db), and with *with_worker* its workers row; (the row, that
    workers row's hold or None, the quota deltas committed).

    :raises VolumeNotFound, InvalidVolume, SnapshotLimitExceeded,
        VolumeSizeExceedsAvailableQuota:
    """
    volume = db_volumes.get(db, volume_id=volume_id, project_id=scope(ctx))
    valid = (V.AVAILABLE, V.IN_USE) if allow_in_use else (V.AVAILABLE,)
    check_volume(volume, valid)
    type_name = db_volumes.get_type_names(db, type_ids={volume.volume_type_id}).get(
        volume.volume_type_id)
    deltas = snapshot_deltas(conf, size=volume.size, type_name=type_name)
    reservations = quota.reserve(db, ctx, conf=conf, project_id=ctx.project_id,
                                 deltas=deltas)
    hold = None
    try:
        with db.writer() as s:
            locked = db_snapshots.lock_volume(s, volume_id=volume_id)
            if locked is None:
                raise exception.VolumeNotFound(volume_id=volume_id)
            check_volume(locked, valid)
            snapshot = db_snapshots.create(db, metadata=metadata, session=s, values={
                'volume_id': volume_id, 'user_id': ctx.user_id, 'project_id': ctx.project_id,
                'progress': '0%', 'volume_size': locked.size, 'display_name': name,
                'display_description': description, 'volume_type_id': locked.volume_type_id,
                'encryption_key_id': locked.encryption_key_id})
            quota.commit(db, ctx, reservations, session=s)
            if with_worker:
                hold = _begin_worker(db, snapshot.id, states.Status.CREATING, session=s)
    except Exception:
        quota.rollback(db, ctx, reservations)
        raise
    return snapshot, hold, deltas


def _begin_worker(db, snapshot_id: str, status: str, *, session):
    """The operation's workers row, in the request's transaction with no service yet."""
    return db_workers.begin(db, resource_type=db_snapshots.MACHINE.name,
                            resource_id=snapshot_id, status=status, service_id=None,
                            session=session)


def delete(db, rpc, ctx, *, snapshot_id: str, force: bool = False) -> None:
    """CAS into `deleting` and cast to the volume's backend.

    :raises SnapshotNotFound, InvalidSnapshot, InvalidInput: (frozen backend)
    """
    volume = db_volumes.get(db, volume_id=get(db, ctx, snapshot_id=snapshot_id).volume_id)
    action = 'force_delete' if force else 'delete'
    with db.writer() as s:
        snapshot, before = db_snapshots.begin_delete(
            db, snapshot_id=snapshot_id, action=action, session=s,
            unfrozen=(volume.host, volume.cluster_name))
        hold = _begin_worker(db, snapshot_id, states.Status.DELETING, session=s)
    undo = db_settle.Outcome(action=action, status=before)
    casting.send(lambda: rpc.volume.delete_snapshot(
        ctx, snapshot_id=snapshot.id, host=volume.host, cluster_name=volume.cluster_name),
        undo=lambda: casting.undone(db_settle.settle(
            db, db_snapshots.MACHINE, row=snapshot, hold=hold, outcome=undo)),
        resource='Snapshot', resource_id=snapshot.id, what='delete_snapshot')


def reset_status(db, ctx, *, snapshot_id: str, status: str, notifier=None) -> None:
    """Admin reset-state: a plain write, as Cinder; with a *notifier*
    `snapshot.reset_status.start/end` around it (Cinder's API sends them).

    :raises SnapshotNotFound:
    """
    snapshot = get(db, ctx, snapshot_id=snapshot_id)
    if notifier is not None:
        notifier.info(ctx, snapshot, 'reset_status.start')
    db_snapshots.MACHINE.reset(db, row_id=snapshot_id, values={'status': status})
    if notifier is not None:
        notifier.info(ctx, get(db, ctx, snapshot_id=snapshot_id), 'reset_status.end')


def update(db, ctx, *, snapshot_id: str, values: dict, notifier=None):
    """PUT: name and description, in any status; the row as now stored. With a *notifier*
    `snapshot.update.start/end` around it (Cinder's API sends them).

    :raises SnapshotNotFound:
    """
    snapshot = get(db, ctx, snapshot_id=snapshot_id)
    if notifier is not None:
        notifier.info(ctx, snapshot, 'update.start')
    db_snapshots.update(db, snapshot_id=snapshot_id, values=values)
    snapshot = get(db, ctx, snapshot_id=snapshot_id)
    if notifier is not None:
        notifier.info(ctx, snapshot, 'update.end')
    return snapshot


def update_status(db, ctx, *, snapshot_id: str, status: str, progress: str | None) -> None:
    """os-update_snapshot_status (Nova's assisted snapshots): only the moves Cinder allows.

    :raises SnapshotNotFound, Invalid: (Cinder's plain 400 texts)
    """
    snapshot = get(db, ctx, snapshot_id=snapshot_id)
    if snapshot.status not in states.REPORTABLE:
        raise exception.Invalid(f'Snapshot status {snapshot.status} not allowed for '
                                'update_snapshot_status')
    if status not in states.REPORTABLE[snapshot.status]:
        raise exception.Invalid(f'Provided snapshot status {status} not allowed for snapshot '
                                f'with status {snapshot.status}.')
    values = {'status': status}
    if progress is not None:
        values['progress'] = progress
    if not db_snapshots.report_status(db, snapshot_id=snapshot_id, expected=snapshot.status,
                                      values=values):
        # NOTE(race): the status moved on since it was read; refuse as Cinder would now.
        current = get(db, ctx, snapshot_id=snapshot_id).status
        raise exception.Invalid(f'Snapshot status {current} not allowed for '
                                'update_snapshot_status')
