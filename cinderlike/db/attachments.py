"""volume_attachment rows: reserve (under the volume's row lock), lookups, listings, and
every attach_status transition with the volume's status recomputed in the same transaction.

The attachment's state table is states/attachments.py (a Machine over `attach_status`); the
volume's status and attach_status then follow from its live attachments, as Cinder's
`volume_detached`/`_get_statuses_from_attachments`, always after `SELECT … FOR UPDATE` on the
volume row, so two writers of one volume's attachments are serialized.
"""

import dataclasses
import uuid

import sqlalchemy as sa
from oslo_log import log as logging

from cinderlike import exception
from cinderlike.db import conditional, listing, transitions
from cinderlike.db import metadata as db_metadata
from cinderlike.db import snapshots as db_snapshots
from cinderlike.db import volumes as db_volumes
from cinderlike.db import workers as db_workers
from cinderlike.db.models import Volume, VolumeAdminMetadata, VolumeAttachment, Worker, utcnow
from cinderlike.states import attachments as states
from cinderlike.states import volumes as volume_states

LOG = logging.getLogger(__name__)

S = states.Status


def _not_found(attachment_id: str) -> exception.VolumeAttachmentNotFound:
    return exception.VolumeAttachmentNotFound(filter=f'attachment_id = {attachment_id}')


def _refusal(action: str, row: VolumeAttachment) -> exception.InvalidVolume:
    allowed = states.TRANSITIONS[action].expected_text()
    return exception.InvalidVolume(
        reason=f'Attachment {row.id} status must be {allowed} to {action.replace("_", " ")}, '
               f'but the current status is {row.attach_status}.')


MACHINE = transitions.Machine(
    name='Attachment', model=VolumeAttachment, table=states.TRANSITIONS, guards={},
    refusal=_refusal, not_found=_not_found, column='attach_status')


def _visible(project_id: str | None) -> list:
    """WHERE clauses of live attachments of a live volume (of *project_id* when given)."""
    where = [VolumeAttachment.deleted == sa.false(), Volume.id == VolumeAttachment.volume_id,
             Volume.deleted == sa.false()]
    if project_id is not None:
        where.append(Volume.project_id == project_id)
    return where


def get(db, *, attachment_id: str, project_id: str | None = None,
        session=None) -> VolumeAttachment:
    """The live attachment; *project_id* limits it to that project's volumes.

    :raises VolumeAttachmentNotFound:
    """
    with db.reader(session) as s:
        row = s.scalars(sa.select(VolumeAttachment).where(
            VolumeAttachment.id == attachment_id, *_visible(project_id))).first()
    if row is None:
        raise _not_found(attachment_id)
    return row


def of_volume(db, *, volume_id: str, session=None) -> list[VolumeAttachment]:
    """The live attachments of a volume, oldest first."""
    with db.reader(session) as s:
        return list(s.scalars(sa.select(VolumeAttachment).where(
            VolumeAttachment.volume_id == volume_id, VolumeAttachment.deleted == sa.false())
            .order_by(VolumeAttachment.created_at, VolumeAttachment.id)))


def _lock_volume(s, volume_id: str) -> Volume:
    volume = db_snapshots.lock_volume(s, volume_id=volume_id)
    if volume is None:
        raise exception.VolumeNotFound(volume_id=volume_id)
    return volume


def _recompute(s, volume: Volume) -> None:
    """The locked volume's status and attach_status from its live attachments."""
    rows = s.scalars(sa.select(VolumeAttachment.attach_status).where(
        VolumeAttachment.volume_id == volume.id, VolumeAttachment.deleted == sa.false()))
    status, attach_status = states.volume_status(rows)
    values = {'attach_status': attach_status}
    # NOTE(migration): as Cinder, a detached volume being migrated keeps its status (the
    # migration settles it); so does one an operation other than attaching holds.
    migrating = volume_states.migrating(volume.migration_status)
    if volume.status in states.ATTACH_DRIVEN and not (
            migrating and attach_status == S.DETACHED):
        values['status'] = status
    conditional.update(s, Volume, values=values, where=[Volume.id == volume.id])
    LOG.info('Volume %(id)s: attachments make it %(values)s', {'id': volume.id,
                                                               'values': values})


def _drop_worker(s, attachment_id: str) -> None:
    """The attachment's workers row goes in the caller's transaction: its detach or its
    reservation ended.

    NOTE(detach): whoever holds it; a detach (the driver's terminate and remove_export)
    and a reservation's undo are idempotent, so an API and a sweep that both end one need
    no fencing.
    """
    s.execute(sa.delete(Worker).where(
        Worker.resource_type == MACHINE.name, Worker.resource_id == attachment_id)
        .execution_options(synchronize_session=False))


def _same_instance(s, volume_id: str, instance_uuid: str | None) -> bool:
    if not instance_uuid:
        return False
    return s.scalar(sa.select(sa.func.count()).select_from(VolumeAttachment).where(
        VolumeAttachment.volume_id == volume_id, VolumeAttachment.deleted == sa.false(),
        VolumeAttachment.instance_uuid == instance_uuid)) > 0


def reserve(db, *, volume_id: str, instance_uuid: str | None, attach_mode: str | None,
            connecting: bool = False, session=None) -> VolumeAttachment:
    """A new `reserved` attachment, the volume `reserved` in the same transaction; with
    *connecting* (a create whose connect call follows) its workers row too, with no service,
    so a reservation whose API died before the call is undone by a sweep.

    NOTE(race): the volume row is locked first, so of two creates on a volume that is not
    multiattach one reserves it and the other then reads `reserved` and is refused.
    :raises VolumeNotFound, InvalidVolume: (Cinder's reserve refusal)
    """
    with db.writer(session) as s:
        volume = _lock_volume(s, volume_id)
        action = ('reserve_attachment_multiattach' if volume.multiattach
                  else 'reserve_attachment')
        try:
            db_volumes.MACHINE.begin(db, row_id=volume_id, action=action, session=s)
        except exception.InvalidVolume:
            if not (volume.status in volume_states.SAME_INSTANCE_RESERVABLE
                    and _same_instance(s, volume_id, instance_uuid)):
                raise
        row = VolumeAttachment(id=str(uuid.uuid4()), volume_id=volume_id,
                               instance_uuid=instance_uuid, attach_status=S.RESERVED,
                               attach_mode=attach_mode)
        s.add(row)
        s.flush()
        if connecting:
            db_workers.begin(db, resource_type=MACHINE.name, resource_id=row.id,
                             status=S.RESERVED, service_id=None, session=s)
    LOG.info('Attachment %s of volume %s: reserved', row.id, volume_id)
    return row


def _transition(db, *, attachment_id: str, action: str, finish: bool = False,
                error: bool = False, status: str | None = None, values: dict | None = None,
                session=None) -> bool:
    """Begin (or finish, to *status* when given) *action* on the attachment, then recompute
    its volume; one transaction under the volume's lock. False when a finish found it moved
    on."""
    with db.writer(session) as s:
        row = MACHINE.get(db, row_id=attachment_id, session=s)
        volume = _lock_volume(s, row.volume_id)
        if finish:
            if not MACHINE.finish(db, row_id=attachment_id, action=action, error=error,
                                  status=status, values=values, session=s):
                return False
        else:
            MACHINE.begin(db, row_id=attachment_id, action=action, values=values, session=s)
        _recompute(s, volume)
    return True


def begin_connect(db, *, attachment_id: str,
                  service_id: int | None = None) -> tuple[VolumeAttachment, db_workers.Hold]:
    """attachment_update starts: `attaching` (the volume too, unless another is attached),
    with the attachment's workers row taken by *service_id* in the same transaction, so a
    connect its service dies in is settled by its restart or a peer (volume/recovery.py).

    NOTE(answer): only an attachment create's reservation wrote a `reserved` row (reserve),
    so finding one tells a create's connect, whose API alone can tell the client the new
    attachment's id, from a PUT's, whose client knows it: the create's Hold is `awaited`, and
    `connected` hands its row back for that API to remove once it has answered
    (connect_answered). A sweep that took the reservation over and lost the volume's lock to
    us left it `reserved`: its API may still answer, or may have died.
    :raises VolumeAttachmentNotFound, InvalidVolume:
    """
    with db.writer() as s:
        _transition(db, attachment_id=attachment_id, action='connect', session=s)
        reservation = db_workers.get(db, resource_type=MACHINE.name, resource_id=attachment_id,
                                     session=s)
        awaited = reservation is not None and reservation.status == S.RESERVED
        hold = db_workers.begin(db, resource_type=MACHINE.name, resource_id=attachment_id,
                                status=S.ATTACHING, service_id=service_id, session=s)
    return get(db, attachment_id=attachment_id), dataclasses.replace(hold, awaited=awaited)


def _end_connect(db, *, attachment_id: str, hold: db_workers.Hold, error: bool = False,
                 values: dict | None = None) -> bool:
    """Finish the connect under *hold*, its workers row removed in the same transaction
    (handed back when it succeeded and its API awaits the answer); False when the row was
    taken over (another service settled the connect) or the attachment moved on.

    NOTE(order): the volume's lock, then the workers row's, as begin_connect takes them.
    """
    with db.writer() as s:
        row = MACHINE.get(db, row_id=attachment_id, session=s)
        _lock_volume(s, row.volume_id)
        if not db_workers.lock_held(s, hold=hold):
            db_workers.fenced(db, hold=hold, operation='connect')
            return False
        done = _transition(db, attachment_id=attachment_id, action='connect', finish=True,
                           error=error, values=values, session=s)
        if done and hold.awaited and not error:
            db_workers.hand_back(db, hold=hold, session=s)
        else:
            db_workers.finish(db, hold=hold, session=s)
    return done


def connected(db, *, attachment_id: str, hold: db_workers.Hold, values: dict) -> bool:
    """The driver connected it: connector, connection_info, host, mountpoint and mode."""
    return _end_connect(db, attachment_id=attachment_id, hold=hold,
                        values=dict(values, attach_time=utcnow()))


def connect_failed(db, *, attachment_id: str, hold: db_workers.Hold,
                   disconnected: bool = False) -> bool:
    """The connection could not be made: `error_attaching` (no longer counted). With
    *disconnected* (a cleanup removed the connection it had made) its connection info goes
    too, so the attachment no longer counts as connected."""
    return _end_connect(db, attachment_id=attachment_id, hold=hold, error=True,
                        values={'connection_info': None} if disconnected else None)


def connect_answered(db, *, attachment_id: str) -> bool:
    """The API is answering an attachment create: the workers row its connect handed back
    is removed; False when it was gone (a sweep or a detach took the attachment)."""
    with db.writer() as s:
        return bool(db_workers.drop_untaken(s, resource_type=MACHINE.name,
                                            resource_ids=[attachment_id], status=S.ATTACHING))


def complete(db, *, attachment_id: str) -> None:
    """os-complete: `attached`, the volume `in-use`. :raises InvalidVolume:"""
    _transition(db, attachment_id=attachment_id, action='complete')


def begin_detach(db, *, attachment_id: str, force: bool = False) -> str:
    """Detaching starts: `detaching` (a forced detach from any status); the status it left.

    The attachment's workers row is written with no service (Cinder's create_worker), so a
    detach whose API process died before finishing it is resumed by the sweep of its
    volume's backend (volume/recovery.py sweep_lost).

    :raises VolumeAttachmentNotFound, InvalidVolume:
    """
    with db.writer() as s:
        row = MACHINE.get(db, row_id=attachment_id, session=s)
        _lock_volume(s, row.volume_id)
        # NOTE(race): read again under the volume's lock, which every writer of the
        # volume's attachments takes first.
        before = s.scalar(sa.select(VolumeAttachment.attach_status).where(
            VolumeAttachment.id == attachment_id))
        _transition(db, attachment_id=attachment_id, session=s,
                    action='force_detach' if force else 'detach')
        db_workers.begin(db, resource_type=MACHINE.name, resource_id=attachment_id,
                         status=S.DETACHING, service_id=None, request={'force': force},
                         session=s)
    return before


def undo_detach(db, *, attachment_id: str, status: str, force: bool = False) -> bool:
    """A detach whose call was not sent: back to *status* (begin_detach's), the volume
    recomputed, its workers row removed; False when the attachment left `detaching` (a
    service took the call)."""
    with db.writer() as s:
        if not _transition(db, attachment_id=attachment_id, finish=True, status=status,
                           action='force_detach' if force else 'detach', session=s):
            return False
        _drop_worker(s, attachment_id)
    return True


def undo_reserve(db, *, attachment_id: str) -> bool:
    """An attachment create whose connect could not be sent: the `reserved` row deleted and
    the volume's status recomputed (Cinder's attachment_delete of a reservation); False
    when the row left `reserved` (the volume service began connecting it)."""
    with db.writer() as s:
        row = MACHINE.get(db, row_id=attachment_id, session=s)
        volume = _lock_volume(s, row.volume_id)
        if not MACHINE.destroy(db, row_id=attachment_id, session=s,
                               where=[VolumeAttachment.attach_status == S.RESERVED]):
            return False
        _drop_worker(s, attachment_id)
        _recompute(s, volume)
    LOG.info('Attachment %s of volume %s: reservation undone', attachment_id, row.volume_id)
    return True


def detach_failed(db, *, attachment_id: str, force: bool = False) -> bool:
    """The backend could not terminate the connection: `error_detaching`, the detach's
    workers row removed."""
    with db.writer() as s:
        done = _transition(db, attachment_id=attachment_id, finish=True, error=True,
                           action='force_detach' if force else 'detach', session=s)
        _drop_worker(s, attachment_id)
    return done


def finish_detach(db, *, volume_id: str, attachment_id: str | None) -> list[VolumeAttachment]:
    """Delete the attachment (when still there), recompute the volume and drop its
    `attached_mode` (Cinder's finish_detach); the attachments left.

    NOTE(race): under the volume's lock, so a detach and a force-detach of one attachment
    both end with the row deleted once and the volume's status from what is left.
    """
    with db.writer() as s:
        volume = _lock_volume(s, volume_id)
        if attachment_id is not None:
            MACHINE.destroy(db, row_id=attachment_id, session=s,
                            where=[VolumeAttachment.volume_id == volume_id],
                            values={'detach_time': utcnow()})
            _drop_worker(s, attachment_id)
        conditional.update(s, VolumeAdminMetadata, values={'deleted': True,
                                                           'deleted_at': utcnow()},
                           where=[VolumeAdminMetadata.volume_id == volume_id,
                                  VolumeAdminMetadata.key == 'attached_mode',
                                  VolumeAdminMetadata.deleted == sa.false()])
        _recompute(s, volume)
        return of_volume(db, volume_id=volume_id, session=s)


def attach(db, *, volume_id: str, values: dict) -> VolumeAttachment:
    """Legacy os-attach: a new `attached` attachment of *values*, the volume `in-use`.

    :raises VolumeNotFound, InvalidVolume: (attached already, and not multiattach)
    """
    with db.writer() as s:
        volume = _lock_volume(s, volume_id)
        action = 'attach_multiattach' if volume.multiattach else 'attach'
        # NOTE(cinder): a volume that is in use and not multiattach may still take a
        # second attachment while it migrates.
        if not volume.migration_status:
            db_volumes.MACHINE.begin(db, row_id=volume_id, action=action, session=s)
        row = VolumeAttachment(id=str(uuid.uuid4()), volume_id=volume_id,
                               attach_status=S.ATTACHED, attach_time=utcnow(), **values)
        s.add(row)
        s.flush()
        db_volumes.update_metadata(db, volume_id=volume_id, admin=True, session=s,
                                   metadata={'attached_mode': values['attach_mode']})
        _recompute(s, volume)
    LOG.info('Attachment %s of volume %s: attached', row.id, volume_id)
    return row


def undo_readonly_flag(db, *, volume_id: str, attachments: int) -> bool:
    """A legacy attach whose call was not sent: the `readonly` admin flag it wrote is
    deleted (its absence reads the same); False when the volume has other than
    *attachments* live attachments (the volume service attached it meanwhile)."""
    with db.writer() as s:
        _lock_volume(s, volume_id)
        if len(of_volume(db, volume_id=volume_id, session=s)) != attachments:
            return False
        db_metadata.delete(db, VolumeAdminMetadata, 'volume_id', owner_id=volume_id,
                           key=db_volumes.READONLY_KEY, session=s)
    return True


def unreserve(db, *, volume_id: str) -> bool:
    """Legacy os-unreserve: `attaching` → `in-use` with attachments, else `available`;
    False (nothing to do) when the volume was not attaching."""
    has = sa.exists().where(VolumeAttachment.volume_id == Volume.id,
                            VolumeAttachment.deleted == sa.false(),
                            VolumeAttachment.attach_status != S.DETACHED)
    status = sa.case((has, volume_states.Status.IN_USE),
                     else_=volume_states.Status.AVAILABLE)
    try:
        db_volumes.MACHINE.begin(db, row_id=volume_id, action='unreserve',
                                 values={'status': status})
    except exception.InvalidVolume:
        LOG.debug('Volume %s was not reserved, nothing to unreserve', volume_id)
        return False
    return True


# --- listings ---------------------------------------------------------------

def _scope(project_id: str | None, filters: dict | None) -> list | None:
    columns = dict(filters or {})
    if 'status' in columns:
        columns['attach_status'] = columns.pop('status')
    if 'instance_id' in columns:
        columns['instance_uuid'] = columns.pop('instance_id')
    extra = listing.column_clauses(VolumeAttachment, columns)
    return None if extra is None else _visible(project_id) + extra


def get_all(db, *, project_id: str | None, filters: dict | None = None,
            marker: str | None = None, limit: int | None = None, offset: int | None = None,
            sort: list[tuple[str, str | None]] | None = None) -> list[VolumeAttachment]:
    """One page of attachments (of every project when *project_id* is None).

    :raises MarkerNotFound, InvalidInput: (a bad sort key or direction)
    """
    pairs = listing.sort_params(VolumeAttachment, sort)
    where = _scope(project_id, filters)
    if where is None or limit == 0:
        return []
    with db.reader() as s:
        marker_row = None
        if marker is not None:
            marker_row = s.scalars(sa.select(VolumeAttachment).where(
                VolumeAttachment.id == marker, *_visible(project_id))).first()
            if marker_row is None:
                raise exception.MarkerNotFound(marker=marker)
        stmt = sa.select(VolumeAttachment).where(*where)
        if marker_row is not None:
            stmt = stmt.where(listing.after_marker(pairs, marker_row))
        stmt = listing.order_by(stmt, pairs)
        if offset:
            stmt = stmt.offset(offset)
        if limit is not None:
            stmt = stmt.limit(limit)
        return list(s.scalars(stmt))




def connected_of_backend(db, *, host: str, cluster_name: str | None = None) -> list[Volume]:
    """The volumes of backend *host* (`host@backend`, any pool) or of its cluster that have
    a connected attachment (a connector, and attaching, attached or detaching)."""
    where = [Volume.host == host, Volume.host.like(f'{host}#%')]
    if cluster_name:
        where.append(Volume.cluster_name == cluster_name)
    connected = sa.exists().where(
        VolumeAttachment.volume_id == Volume.id, VolumeAttachment.deleted == sa.false(),
        VolumeAttachment.connector.is_not(None),
        VolumeAttachment.attach_status.in_((S.ATTACHING, S.ATTACHED, S.DETACHING)))
    with db.reader() as s:
        return list(s.scalars(sa.select(Volume).where(Volume.deleted == sa.false(),
                                                      sa.or_(*where), connected)))
