"""cinderlike-api: volume business rules — lookups, quota, state CAS via db/, the RPC casts.

Cinder's volume/api.py for volumes: every status change is one db/volumes.py transition,
and a request refused after a reservation rolls the reservation back.
"""

from oslo_log import log as logging

from cinderlike import exception, quota
from cinderlike.api import casting
from cinderlike.api.flows import create_volume
from cinderlike.db import settle as db_settle
from cinderlike.db import snapshots as db_snapshots
from cinderlike.db import volume_types as db_types
from cinderlike.db import volumes as db_volumes
from cinderlike.db import workers as db_workers
from cinderlike.db.models import utcnow
from cinderlike.states import volumes as states
from cinderlike.states.machine import PREVIOUS
from cinderlike.states.snapshots import Status as SnapshotStatus

LOG = logging.getLogger(__name__)


def scope(ctx) -> str | None:
    """The project a caller's lookups are limited to; None (every project) for admins."""
    return None if ctx.is_admin else ctx.project_id


def get(db, ctx, *, volume_id: str, session=None, lock: bool = False):
    """*lock* as db/volumes.get's.

    :raises VolumeNotFound: also for another project's volume, as Cinder.
    """
    return db_volumes.get(db, volume_id=volume_id, project_id=scope(ctx), session=session,
                          lock=lock)


def create(conf, db, rpc, enforcer, ctx, *, request: create_volume.CreateRequest):
    """Validate, check quota, insert `creating` (quota consumed) and cast to the scheduler;
    the new row and its volume type."""
    metadata = request.metadata or {}
    for key in metadata:
        if not key or not key.strip():
            raise exception.InvalidVolumeMetadata(reason='Metadata property key blank.')
    return create_volume.run(conf=conf, db=db, scheduler=rpc.scheduler, enforcer=enforcer,
                             ctx=ctx, request=request)


def _type_name(db, volume, session=None) -> str | None:
    return db_volumes.get_type_names(db, type_ids={volume.volume_type_id},
                                     session=session).get(volume.volume_type_id)


def _deleted_deltas(db, volume, session=None) -> dict[str, int]:
    deltas = quota.volume_deltas(size=volume.size or 0,
                                 volume_type_name=_type_name(db, volume, session))
    return {resource: -amount for resource, amount in deltas.items()}


def delete(db, rpc, ctx, *, volume_id: str, authorize=None, force: bool = False,
           cascade: bool = False):
    """Look the volume up and *authorize(volume)* it (when given), then destroy it here when
    no scheduler placed it, or move it to `deleting` and cast to its backend.

    NOTE(perf): the lookup is the first statement of the delete's transaction, not a
    transaction of its own (one COMMIT less), and a locking read: the lock the transition's
    guards need (Machine.begin) is taken by it, not by a statement of its own. The delete's
    CAS UPDATE decides on the row as it stands then.
    :raises VolumeNotFound, InvalidVolume: (the delete transition's expected states),
        InvalidInput: on a frozen backend; what *authorize* raises
    """
    action = ('force_' if force else '') + ('delete_cascade' if cascade else 'delete')
    # NOTE(cascade): as Cinder, a non-admin's cascade may not take another project's
    # snapshots (a transferred volume's) down with the volume.
    foreign = ([db_volumes.other_project_snapshots()]
               if cascade and not force and not ctx.is_admin else [])
    with db.writer() as session:
        volume = get(db, ctx, volume_id=volume_id, session=session, lock=True)
        if authorize is not None:
            authorize(volume)
        if volume.host is None and db_volumes.destroy_unscheduled(db, volume_id=volume_id,
                                                                  session=session):
            # NOTE(unscheduled): as Cinder, a volume no scheduler placed has nothing on a
            # backend; error_managing rows never consumed quota.
            if volume.status != states.Status.ERROR_MANAGING and volume.use_quota:
                quota.release_usage(db, project_id=volume.project_id,
                                    deltas=_deleted_deltas(db, volume, session),
                                    session=session)
            return
        volume = db_volumes.MACHINE.begin(db, row_id=volume_id, action=action,
                                          project_id=scope(ctx), where=foreign,
                                          values={'terminated_at': utcnow()},
                                          unfrozen=(volume.host, volume.cluster_name),
                                          session=session, locked=volume)
        snapshots = (db_snapshots.begin_cascade(db, volume_id=volume_id, force=force,
                                                session=session) if cascade else {})
        hold = _begin_worker(db, volume, states.Status.DELETING, session=session)

    def undo():
        with db.writer() as s:
            if not casting.undone(db_settle.settle(
                    db, db_volumes.MACHINE, row=volume, hold=hold, session=s,
                    outcome=db_settle.Outcome(action=action, status=PREVIOUS,
                                              values={'terminated_at': None}))):
                return False
            db_snapshots.undo_cascade(db, statuses=snapshots, session=s)
        return True
    casting.send(lambda: rpc.volume.delete_volume(
        ctx, volume_id=volume.id, host=volume.host, cluster_name=volume.cluster_name,
        cascade=cascade), undo=undo, resource='Volume', resource_id=volume.id,
        what='delete_volume')


def _begin_worker(db, volume, status: str, *, request: dict | None = None, session):
    """The operation's workers row, written in the request's transaction with no service
    yet (Cinder's create_worker): the service that takes the cast takes the row."""
    return db_workers.begin(db, resource_type=db_volumes.MACHINE.name, resource_id=volume.id,
                            status=status, service_id=None, request=request, session=session)


def extend(conf, db, rpc, ctx, *, volume_id: str, new_size: int, attached: bool):
    """CAS into `extending`, reserve the extra gigabytes, let the scheduler re-check the backend.

    :raises InvalidInput: new size not larger; InvalidVolume; VolumeSizeExceedsLimit,
        VolumeSizeExceedsAvailableQuota: (413) — the volume returns to its previous status.
    """
    volume = get(db, ctx, volume_id=volume_id)
    if new_size <= volume.size:
        raise exception.InvalidInput(
            reason=f'New size for extend must be greater than current size. (current: '
                   f'{volume.size}, extended: {new_size}).')
    action = 'extend_attached' if attached else 'extend'
    vtype = db_types.get(db, type_id=volume.volume_type_id)
    deltas = quota.volume_deltas(size=new_size - volume.size, volume_type_name=vtype.name)
    deltas = {k: v for k, v in deltas.items() if k.startswith('gigabytes')}
    # NOTE(one_transaction): status, reservation and workers row commit together, so a
    # refusal (over quota) writes nothing and a lost cast leaves a row to settle.
    with db.writer() as session:
        volume = db_volumes.MACHINE.begin(db, row_id=volume_id, action=action,
                                          project_id=scope(ctx), session=session)
        quota.check_volume_size(db, conf=conf, project_id=volume.project_id, size=new_size,
                                session=session)
        reservations = quota.reserve(db, ctx, conf=conf, project_id=volume.project_id,
                                     deltas=deltas, session=session)
        hold = _begin_worker(db, volume, states.Status.EXTENDING, session=session,
                             request={'new_size': new_size, 'reservations': reservations,
                                      'claimed': False})
    spec = {'volume_id': volume.id, 'volume_properties': {
        'size': volume.size, 'availability_zone': volume.availability_zone,
        'project_id': volume.project_id, 'volume_type_id': vtype.id},
        'volume_type': {'id': vtype.id, 'name': vtype.name,
                        'extra_specs': dict(vtype.extra_specs)}}
    undo = db_settle.Outcome(action=action, status=PREVIOUS, rollback=tuple(reservations))
    casting.send(lambda: rpc.scheduler.extend_volume(
        ctx, volume_id=volume.id, new_size=new_size, reservations=reservations,
        request_spec=spec), undo=lambda: casting.undone(db_settle.settle(
            db, db_volumes.MACHINE, row=volume, hold=hold, outcome=undo)),
        resource='Volume', resource_id=volume.id, what='extend_volume to the scheduler')


def reset_status(db, ctx, *, volume_id: str, values: dict) -> None:
    """Admin reset-state: a plain write, as Cinder; in-use needs attachments.

    :raises VolumeNotFound, InvalidVolume:
    """
    get(db, ctx, volume_id=volume_id)
    if values.get('status') == states.Status.IN_USE and not db_volumes.get_attachments(
            db, volume_ids=[volume_id])[volume_id]:
        raise exception.InvalidVolume(
            reason='Cannot reset-state to in-use because volume does not have any '
                   'attachments.')
    db_volumes.MACHINE.reset(db, row_id=volume_id, values=values)


def update(db, ctx, *, volume_id: str, values: dict, metadata: dict | None,
           notifier=None) -> None:
    """PUT /volumes/{id}: name, description and (all of) the metadata.

    With a *notifier* (PUT, not os-set_bootable, as Cinder) `volume.update` follows.
    """
    volume = get(db, ctx, volume_id=volume_id)
    with db.writer() as session:
        if values:
            db_volumes.update(db, volume_id=volume_id, values=values, session=session)
        if metadata is not None:
            db_volumes.update_metadata(db, volume_id=volume_id, metadata=metadata,
                                       replace=True, session=session)
    if notifier is not None:
        notifier.info(ctx, volume, 'update', reload=True)


def update_readonly_flag(db, ctx, *, volume_id: str, readonly: bool) -> None:
    """Admin metadata `readonly`; the volume must be available.

    :raises InvalidVolume:
    """
    volume = get(db, ctx, volume_id=volume_id)
    if volume.status != states.Status.AVAILABLE:
        raise exception.InvalidVolume(
            reason=f'Volume {volume.id} status must be available to update readonly flag, '
                   f'but current status is: {volume.status}.')
    db_volumes.update_metadata(db, volume_id=volume_id, metadata=db_volumes.readonly_flag(readonly),
                               admin=True)


def revert(db, rpc, ctx, *, volume_id: str, snapshot_id: str | None) -> None:
    """Revert to the latest snapshot (3.40): volume `reverting`, snapshot `restoring`, both
    in one transaction under the volume's row lock (so no newer snapshot slips in).

    :raises VolumeNotFound, Invalid: (400, Cinder's plain texts: none, not the latest,
        other size); VolumeRevertConflict, SnapshotRevertConflict: (409: status)
    """
    volume = get(db, ctx, volume_id=volume_id)
    with db.writer() as session:
        db_snapshots.lock_volume(session, volume_id=volume_id)
        latest = db_snapshots.latest(db, volume_id=volume_id, session=session)
        if latest is None:
            raise exception.Invalid(f"Volume {volume.id} doesn't have any snapshots.")
        if snapshot_id is None or snapshot_id != latest.id:
            raise exception.Invalid(f'Specified snapshot {snapshot_id} is None or not the '
                                    f'latest one of volume {volume.id}.')
        if volume.size != latest.volume_size:
            raise exception.Invalid(
                f"Can't revert volume {volume.id} to its latest snapshot {latest.id}. The "
                'volume size must be equal to the snapshot size.')
        try:
            db_volumes.MACHINE.begin(db, row_id=volume_id, action='revert', session=session)
        except exception.InvalidVolume:
            raise exception.VolumeRevertConflict(
                reason=f"Can't revert volume {volume.id} to its latest snapshot "
                       f"{latest.id}. Volume's status must be 'available'.") from None
        try:
            db_snapshots.MACHINE.begin(db, row_id=latest.id, action='revert',
                                       session=session)
        except exception.InvalidSnapshot:
            raise exception.SnapshotRevertConflict(
                reason=f"Can't revert volume {volume.id} to its latest snapshot "
                       f"{latest.id}. Snapshot's status must be 'available'.") from None

    def undo():
        with db.writer() as s:
            if not db_volumes.MACHINE.finish(db, row_id=volume_id, action='revert',
                                             status=states.Status.AVAILABLE, session=s):
                return False
            db_snapshots.MACHINE.finish(db, row_id=latest.id, action='revert',
                                        status=SnapshotStatus.AVAILABLE, session=s)
        return True
    casting.send(lambda: rpc.volume.revert_to_snapshot(
        ctx, volume_id=volume.id, snapshot_id=latest.id, host=volume.host,
        cluster_name=volume.cluster_name), undo=undo, resource='Volume',
        resource_id=volume.id, what='revert_to_snapshot')
