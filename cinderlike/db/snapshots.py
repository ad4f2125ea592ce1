"""snapshots rows: create (under the volume's row lock), lookups, and every status transition.

Each transition is one compare-and-swap UPDATE built from states/snapshots.py (db/transitions.py).
A snapshot is inserted only while its volume row is locked in an allowed status, and volume
delete and revert lock that row too, so "snapshot created" and "volume deleted" (or "volume
reverted from an older snapshot") cannot both win.
"""

import uuid

import sqlalchemy as sa
from oslo_log import log as logging

from cinderlike import exception
from cinderlike.db import conditional, listing, transitions
from cinderlike.db import metadata as db_metadata
from cinderlike.db import volumes as db_volumes
from cinderlike.db.models import Snapshot, SnapshotMetadata, Volume
from cinderlike.states import snapshots as states

LOG = logging.getLogger(__name__)

GUARDS = {
    'not_in_group_snapshot': lambda: Snapshot.group_snapshot_id.is_(None),
}


def _refusal(action: str, row: Snapshot) -> exception.InvalidSnapshot:
    """Cinder's 400 for *action* refused on *row*."""
    if action in ('delete', 'force_delete', 'unmanage'):
        # NOTE(cinder): one text for the status and the group test, as Cinder's one
        # conditional update; a force delete names no status (hence Cinder's two spaces).
        allowed = states.TRANSITIONS[action].allowed_from
        status = ('' if action == 'force_delete'
                  else f"status must be {' or '.join(sorted(allowed))} and")
        return exception.InvalidSnapshot(reason=f'Snapshot {status} must not be part of a '
                                                'group.')
    allowed = ' or '.join(sorted(states.TRANSITIONS[action].allowed_from))
    return exception.InvalidSnapshot(
        reason=f'Snapshot status must be {allowed} to {action.replace("_", " ")}, '
               f'but the current status is {row.status}.')


MACHINE = transitions.Machine(
    name='Snapshot', model=Snapshot, table=states.TRANSITIONS, guards=GUARDS,
    refusal=_refusal,
    not_found=lambda snapshot_id: exception.SnapshotNotFound(snapshot_id=snapshot_id),
    children=((SnapshotMetadata, 'snapshot_id'),))


def get(db, *, snapshot_id: str, project_id: str | None = None, session=None) -> Snapshot:
    """The live snapshot; *project_id* limits the lookup to that project (non-admins).

    :raises SnapshotNotFound:
    """
    return MACHINE.get(db, row_id=snapshot_id, project_id=project_id, session=session)


def lock_volume(s, *, volume_id: str) -> Volume | None:
    """Lock the live volume row for the rest of the transaction; None when it is gone.

    NOTE(race): every decision that reads a volume's snapshots (delete's `no_snapshots`
    guard, revert's "latest snapshot") takes this lock first, and so does a snapshot's
    insert: each then reads what the other committed (a statement after a lock wait sees
    the committed rows on PostgreSQL's READ COMMITTED and MariaDB's locking reads).
    """
    return s.scalars(sa.select(Volume).where(Volume.id == volume_id,
                                             Volume.deleted == sa.false())
                     .with_for_update()).first()


def create(db, *, values: dict, metadata: dict | None = None, session=None) -> Snapshot:
    """Insert a snapshot `creating` (and its metadata); a new id unless *values* has one."""
    row = Snapshot(id=values.get('id') or str(uuid.uuid4()), status=states.Status.CREATING,
                   **{k: v for k, v in values.items() if k not in ('id', 'status')})
    with db.writer(session) as s:
        s.add(row)
        s.flush()
        s.add_all(SnapshotMetadata(snapshot_id=row.id, key=k, value=v)
                  for k, v in (metadata or {}).items())
        s.flush()
    LOG.info('Snapshot %s of volume %s: created, status creating', row.id, row.volume_id)
    return row


def of_volume(db, *, volume_id: str, session=None) -> list[Snapshot]:
    """The live snapshots of a volume, oldest first."""
    with db.reader(session) as s:
        return list(s.scalars(sa.select(Snapshot).where(
            Snapshot.volume_id == volume_id, Snapshot.deleted == sa.false())
            .order_by(Snapshot.created_at, Snapshot.id)))


def of_backend(db, *, host: str, cluster_name: str | None = None) -> list[tuple]:
    """(snapshot, volume) of the live snapshots of a backend's volumes (Cinder's
    _get_my_snapshots)."""
    with db.reader() as s:
        return [tuple(row) for row in s.execute(
            sa.select(Snapshot, Volume).join(Volume, Volume.id == Snapshot.volume_id).where(
                Snapshot.deleted == sa.false(),
                db_volumes.on_backend(host=host, cluster_name=cluster_name)))]


def latest(db, *, volume_id: str, session=None) -> Snapshot | None:
    """The volume's most recent live snapshot (revert's rule)."""
    with db.reader(session) as s:
        return s.scalars(sa.select(Snapshot).where(
            Snapshot.volume_id == volume_id, Snapshot.deleted == sa.false())
            .order_by(Snapshot.created_at.desc(), Snapshot.id.desc()).limit(1)).first()


def report_status(db, *, snapshot_id: str, expected: str, values: dict) -> bool:
    """os-update_snapshot_status: write *values* while the status is still *expected*."""
    with db.writer() as s:
        count = conditional.update(s, Snapshot, values=values,
                                   where=[*MACHINE.live(snapshot_id),
                                          Snapshot.status == expected])
    if count:
        LOG.info('Snapshot %(id)s: status reported %(values)s',
                 {'id': snapshot_id, 'values': values})
    return bool(count)


def begin_cascade(db, *, volume_id: str, force: bool, session) -> dict[str, str]:
    """Every live snapshot of a volume whose cascade delete began → `deleting`, in the
    volume's transaction; {snapshot id: the status it left} (for undo_cascade).

    :raises InvalidVolume: when one of them may not be deleted (the transaction rolls back,
        so the volume keeps its status too).
    """
    where = [Snapshot.volume_id == volume_id, Snapshot.deleted == sa.false(),
             Snapshot.group_snapshot_id.is_(None)]
    if not force:
        where.append(Snapshot.status.in_(states.CASCADE_FROM))
    # NOTE(race): the volume's row lock (its delete's guards) keeps the set still.
    left = dict(session.execute(sa.select(Snapshot.id, Snapshot.status).where(*where)).all())
    count = conditional.update(session, Snapshot, values={'status': states.Status.DELETING},
                               where=where)
    live = len(of_volume(db, volume_id=volume_id, session=session))
    if count != live:
        raise exception.InvalidVolume(reason='Failed to update snapshot.')
    return left


def begin_delete(db, *, snapshot_id: str, action: str, session,
                 unfrozen: tuple[str | None, str | None] | None) -> tuple[Snapshot, str]:
    """Begin *action* (a delete) on the snapshot, whose volume's backend *unfrozen*
    (host, cluster_name; None: unchecked) must not be frozen; (row, the status it left), read
    under the row's lock so undoing it restores exactly that (snapshots keep no
    previous_status).

    :raises SnapshotNotFound, InvalidInput: (frozen), InvalidSnapshot:
    """
    left = session.scalars(sa.select(Snapshot.status).where(*MACHINE.live(snapshot_id))
                           .with_for_update()).first()
    return MACHINE.begin(db, row_id=snapshot_id, action=action, session=session,
                         unfrozen=unfrozen), left


def undo_cascade(db, *, statuses: dict[str, str], session) -> None:
    """Return snapshots a cascade delete moved to `deleting` to *statuses* (what
    begin_cascade answered), in the volume's undo transaction."""
    for snapshot_id, status in statuses.items():
        conditional.update(session, Snapshot, values={'status': status},
                           where=[*MACHINE.live(snapshot_id),
                                  Snapshot.status == states.Status.DELETING])


def set_volume_type(db, *, volume_id: str, volume_type_id: str, session=None) -> int:
    """A retyped volume's live snapshots take its new type (Cinder's retype); how many."""
    with db.writer(session) as s:
        return conditional.update(s, Snapshot, values={'volume_type_id': volume_type_id},
                                  where=[Snapshot.volume_id == volume_id,
                                         Snapshot.deleted == sa.false()])


def update(db, *, snapshot_id: str, values: dict) -> None:
    """Change columns of a live snapshot (name, description, its export) in any status.

    :raises SnapshotNotFound:
    """
    with db.writer() as s:
        if not conditional.update(s, Snapshot, values=values, where=MACHINE.live(snapshot_id)):
            raise exception.SnapshotNotFound(snapshot_id=snapshot_id)


# --- listings ---------------------------------------------------------------

def _filter_clauses(filters: dict) -> list | None:
    """WHERE clauses of Cinder's snapshot filters; None when nothing can match.

    `metadata` is a dict (each pair must be present), `availability_zone` is the volume's,
    any other key is a snapshots column (db/listing.py column_clauses).
    """
    clauses = []
    columns = {}
    for key, value in filters.items():
        if key == 'metadata':
            if not isinstance(value, dict):
                return None
            clauses.extend(sa.exists().where(
                SnapshotMetadata.snapshot_id == Snapshot.id,
                SnapshotMetadata.deleted == sa.false(), SnapshotMetadata.key == str(k),
                SnapshotMetadata.value == str(v)) for k, v in value.items())
        elif key == 'availability_zone':
            clauses.append(sa.exists().where(Volume.id == Snapshot.volume_id,
                                             Volume.availability_zone == value))
        else:
            columns[key] = value
    extra = listing.column_clauses(Snapshot, columns)
    return None if extra is None else clauses + extra


# NOTE(marker): Cinder answers a snapshot marker nobody sees with SnapshotNotFound.
LISTING = listing.Listing(
    model=Snapshot, filter_clauses=_filter_clauses,
    marker_not_found=lambda marker: exception.SnapshotNotFound(snapshot_id=marker))


def get_all(db, *, project_id: str | None, filters: dict | None = None,
            marker: str | None = None, limit: int | None = None, offset: int | None = None,
            sort: list[tuple[str, str | None]] | None = None,
            sort_aliases: dict[str, str] | None = None, session=None) -> list[Snapshot]:
    """One page of snapshots (all projects when *project_id* is None); see Listing.get_all."""
    return LISTING.get_all(db, project_id=project_id, filters=filters, marker=marker,
                           limit=limit, offset=offset, sort=sort, sort_aliases=sort_aliases,
                           session=session)


def count(db, *, project_id: str | None, filters: dict | None = None, session=None) -> int:
    """How many snapshots match, ignoring pagination (`with_count`, 3.45)."""
    return LISTING.count(db, project_id=project_id, filters=filters, session=session)


# --- metadata ---------------------------------------------------------------

def get_metadata(db, *, snapshot_ids: list[str], session=None) -> dict[str, dict[str, str]]:
    """{snapshot id: {key: value}}, for every id in one query."""
    return db_metadata.get(db, SnapshotMetadata, 'snapshot_id', ids=snapshot_ids,
                           session=session)


def update_metadata(db, *, snapshot_id: str, metadata: dict[str, str],
                    replace: bool = False) -> dict[str, str]:
    """Merge *metadata* into the snapshot's (the whole set with *replace*); the result."""
    return db_metadata.update(db, SnapshotMetadata, 'snapshot_id', owner_id=snapshot_id,
                              metadata=metadata, replace=replace)


def delete_metadata(db, *, snapshot_id: str, key: str) -> None:
    """:raises SnapshotMetadataNotFound:"""
    if not db_metadata.delete(db, SnapshotMetadata, 'snapshot_id', owner_id=snapshot_id,
                              key=key):
        raise exception.SnapshotMetadataNotFound(snapshot_id=snapshot_id, metadata_key=key)
