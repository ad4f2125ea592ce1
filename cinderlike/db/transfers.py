"""transfers rows: a volume offered to another project, listed, withdrawn or accepted.

Every write composes with the volume's `transfer` transition (states/volumes.py) in one
transaction: create = begin + insert, delete = undo_begin + the row's soft delete, accept =
finish under the new owner + its snapshots + the row marked accepted. The volume row is
always written first, so concurrent requests on one transfer queue on it and one wins.
"""

import uuid

import sqlalchemy as sa
from oslo_log import log as logging
from oslo_utils import strutils

from cinderlike import exception
from cinderlike.db import conditional, listing
from cinderlike.db import volumes as db_volumes
from cinderlike.db.models import Snapshot, Transfer, Volume, utcnow
from cinderlike.states import snapshots as snapshot_states

LOG = logging.getLogger(__name__)

# Columns a list may filter on with an exact match (Cinder's is_valid_model_filters).
FILTER_COLUMNS = frozenset(c.key for c in Transfer.__table__.columns)
_BOOLEAN_COLUMNS = frozenset(c.key for c in Transfer.__table__.columns
                             if isinstance(c.type, sa.Boolean))


def _visible(project_id: str | None) -> list:
    """WHERE clauses of open transfers; of *project_id*'s volumes when given (Cinder's join)."""
    where = [Transfer.deleted == sa.false()]
    if project_id is not None:
        where.append(sa.exists().where(Volume.id == Transfer.volume_id,
                                       Volume.project_id == project_id))
    return where


def get(db, *, transfer_id: str, project_id: str | None = None, session=None) -> Transfer:
    """The open transfer, seen from *project_id* (None: any project, as admins and accepts).

    :raises TransferNotFound:
    """
    with db.reader(session) as s:
        row = s.scalars(sa.select(Transfer).where(Transfer.id == transfer_id,
                                                  *_visible(project_id))).first()
    if row is None:
        raise exception.TransferNotFound(transfer_id=transfer_id)
    return row


def _filter_clauses(filters: dict) -> list | None:
    """Exact matches on columns; None when a key names no column (then nothing matches)."""
    if any(key not in FILTER_COLUMNS for key in filters):
        return None
    clauses = []
    for key, value in filters.items():
        if key in _BOOLEAN_COLUMNS and isinstance(value, str):
            value = strutils.bool_from_string(value)
        clauses.append(getattr(Transfer, key) == value)
    return clauses


def get_all(db, *, project_id: str | None, filters: dict | None = None,
            marker: str | None = None, limit: int | None = None, offset: int | None = None,
            sort: list[tuple[str, str | None]] | None = None) -> list[Transfer]:
    """One page of open transfers of *project_id*'s volumes (every project when None).

    :raises TransferNotFound: for a marker that is no visible transfer; InvalidInput on sort.
    """
    pairs = listing.sort_params(Transfer, sort)
    extra = _filter_clauses(filters or {})
    if extra is None:
        return []
    with db.reader() as s:
        stmt = sa.select(Transfer).where(*_visible(project_id), *extra)
        if marker is not None:
            stmt = stmt.where(listing.after_marker(
                pairs, get(db, transfer_id=marker, project_id=project_id, session=s)))
        stmt = listing.order_by(stmt, pairs).offset(offset or None).limit(limit)
        return list(s.scalars(stmt))


def _snapshots(volume_id: str, *where):
    return sa.select(Snapshot).where(Snapshot.volume_id == volume_id,
                                     Snapshot.deleted == sa.false(), *where)


def snapshots_of(db, *, volume_id: str, session=None) -> list[Snapshot]:
    """The live snapshots of the volume, oldest first."""
    with db.reader(session) as s:
        return list(s.scalars(_snapshots(volume_id).order_by(Snapshot.created_at,
                                                             Snapshot.id)))


def unmovable_snapshot(db, *, volume_id: str, session=None) -> Snapshot | None:
    """The first live snapshot of the volume that could not travel with it, if any."""
    with db.reader(session) as s:
        return s.scalars(_snapshots(volume_id, Snapshot.status != snapshot_states.TRANSFERABLE)
                         .order_by(Snapshot.created_at, Snapshot.id)).first()


def create(db, *, values: dict, session=None) -> Transfer:
    """Insert the offer and move its volume `available` → `awaiting-transfer`, atomically.

    Unless `no_snapshots`, the move also requires every snapshot of the volume available.
    :raises InvalidVolume: Cinder's message when the volume is not available any more.
    """
    transfer_id = values.get('id') or str(uuid.uuid4())
    volume_id = values['volume_id']
    where = []
    if not values.get('no_snapshots'):
        where.append(~sa.exists().where(Snapshot.volume_id == Volume.id,
                                        Snapshot.deleted == sa.false(),
                                        Snapshot.status != snapshot_states.TRANSFERABLE))
    with db.writer(session) as s:
        try:
            db_volumes.MACHINE.begin(db, row_id=volume_id, action='transfer', where=where,
                                     session=s)
        except exception.InvalidVolume:
            raise exception.InvalidVolume(
                reason=f'Transfer {transfer_id}: Volume id {volume_id} expected in available '
                       'state.') from None
        row = Transfer(id=transfer_id, **{k: v for k, v in values.items() if k != 'id'})
        s.add(row)
        s.flush()
        s.refresh(row)
    LOG.info('Transfer %(id)s of volume %(volume)s created',
             {'id': transfer_id, 'volume': volume_id})
    return row


def set_encryption_key(db, *, volume_id: str, key_id: str, session=None) -> None:
    """Point the volume and its snapshots at *key_id*, its key moved to another owner."""
    with db.writer(session) as s:
        s.execute(sa.update(Volume).where(Volume.id == volume_id).values(
            encryption_key_id=key_id))
        s.execute(sa.update(Snapshot).where(Snapshot.volume_id == volume_id,
                                            Snapshot.deleted == sa.false()).values(
            encryption_key_id=key_id))


def _close(s, transfer_id: str, **values) -> bool:
    """Soft-delete the open transfer row (with *values*); False when it is closed already."""
    return bool(conditional.update(
        s, Transfer,
        values={'deleted': True, 'deleted_at': utcnow(), 'updated_at': Transfer.updated_at,
                **values},
        where=[Transfer.id == transfer_id, Transfer.deleted == sa.false()]))


def destroy(db, *, transfer: Transfer, session=None) -> None:
    """Withdraw the offer: the volume back to `available`, the row soft-deleted.

    A volume that left `awaiting-transfer` meanwhile is left alone, as Cinder does.
    :raises TransferNotFound: when the transfer was accepted or deleted meanwhile.
    """
    with db.writer(session) as s:
        if not db_volumes.MACHINE.undo_begin(db, row_id=transfer.volume_id, action='transfer',
                                             session=s):
            LOG.error('Transfer %s: Volume expected in awaiting-transfer state.', transfer.id)
        if not _close(s, transfer.id):
            raise exception.TransferNotFound(transfer_id=transfer.id)
    LOG.info('Transfer %s deleted', transfer.id)


def accept(db, *, transfer: Transfer, snapshots: list[Snapshot], user_id: str,
           project_id: str, session=None) -> None:
    """Give the volume and *snapshots* (all available) to *project_id*'s *user_id*.

    One transaction: the volume `awaiting-transfer` → `available` with its new owner, each
    snapshot re-owned, the transfer row closed as accepted.
    :raises InvalidVolume, InvalidSnapshot: Cinder's messages; TransferNotFound: when the
        transfer was closed meanwhile.
    """
    owner = {'user_id': user_id, 'project_id': project_id, 'updated_at': utcnow()}
    with db.writer(session) as s:
        if not db_volumes.MACHINE.finish(db, row_id=transfer.volume_id, action='transfer',
                                         values=owner, session=s):
            raise exception.InvalidVolume(
                reason=f'Transfer {transfer.id}: Volume id {transfer.volume_id} expected in '
                       'awaiting-transfer state.')
        for snapshot in snapshots:
            if not conditional.update(s, Snapshot, values=owner, where=[
                    Snapshot.id == snapshot.id, Snapshot.deleted == sa.false(),
                    Snapshot.status == snapshot_states.TRANSFERABLE]):
                raise exception.InvalidSnapshot(
                    reason=f'Transfer {transfer.id}: Snapshot {snapshot.id} is not in the '
                           'expected available state.')
        if not _close(s, transfer.id, destination_project_id=project_id, accepted=True):
            raise exception.TransferNotFound(transfer_id=transfer.id)
    LOG.info('Transfer %(id)s accepted by project %(project)s, volume %(volume)s and '
             '%(count)d snapshots moved', {'id': transfer.id, 'project': project_id,
                                           'volume': transfer.volume_id,
                                           'count': len(snapshots)})
