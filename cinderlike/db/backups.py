"""backups rows: create (with its quota and its volume's or snapshot's status, in one
transaction), lookups, listings, and every status transition.

Each transition is one compare-and-swap UPDATE built from states/backups.py
(db/transitions.py). An incremental backup is inserted only while its parent row is locked
`available`, and a delete locks the backup before its `no_dependents` guard reads the
children, so "incremental created" and "parent deleted" cannot both win.
"""

import uuid
from collections.abc import Callable

import sqlalchemy as sa
from oslo_log import log as logging

from cinderlike import exception
from cinderlike.db import conditional, listing, transitions
from cinderlike.db import metadata as db_metadata
from cinderlike.db import reservations as db_reservations
from cinderlike.db import snapshots as db_snapshots
from cinderlike.db import volumes as db_volumes
from cinderlike.db.models import Backup, BackupMetadata, Worker, utcnow
from cinderlike.states import backups as states

LOG = logging.getLogger(__name__)

S = states.Status

_Child = sa.orm.aliased(Backup)

NO_PARENT = 'No backups available to do an incremental backup.'


def _children(*where) -> sa.Exists:
    """EXISTS a live backup whose parent is the backup row (matching *where*)."""
    return sa.exists().where(_Child.parent_id == Backup.id, _Child.deleted == sa.false(), *where)


GUARDS = {
    'no_dependents': lambda: ~_children(),
}


def _refusal(action: str, row: Backup) -> exception.InvalidBackup:
    """Cinder's 400 for *action* refused on *row*."""
    transition = states.TRANSITIONS[action]
    if action in ('delete', 'force_delete') and transition.allows(row.status):
        return exception.InvalidBackup(reason='Incremental backups exist for this backup.')
    if action == 'delete':
        return exception.InvalidBackup(reason='Backup status must be available or error')
    if action == 'restore':
        return exception.InvalidBackup(reason='Backup status must be available')
    return exception.InvalidBackup(
        reason=f'Backup status must be {transition.expected_text()} to '
               f'{action.replace("_", " ")}, but the current status is {row.status}.')


MACHINE = transitions.Machine(
    name='Backup', model=Backup, table=states.TRANSITIONS, guards=GUARDS, refusal=_refusal,
    not_found=lambda backup_id: exception.BackupNotFound(backup_id=backup_id),
    children=((BackupMetadata, 'backup_id'),))


def get(db, *, backup_id: str, project_id: str | None = None, session=None) -> Backup:
    """The live backup; *project_id* limits the lookup to that project (non-admins).

    :raises BackupNotFound:
    """
    return MACHINE.get(db, row_id=backup_id, project_id=project_id, session=session)


def get_any(db, *, backup_id: str, session=None) -> Backup | None:
    """The row with this id even when soft-deleted (an import revives it)."""
    with db.reader(session) as s:
        return s.get(Backup, backup_id)


def latest_available(db, *, volume_id: str, project_id: str,
                     before=None) -> Backup | None:
    """The parent of an incremental backup (Cinder's rule): the volume's available backup
    with the latest data_timestamp, earlier than *before* (a snapshot's creation) if given."""
    where = [Backup.volume_id == volume_id, Backup.project_id == project_id,
             Backup.deleted == sa.false(), Backup.status == S.AVAILABLE]
    if before is not None:
        where.append(Backup.data_timestamp < before)
    with db.reader() as s:
        return s.scalars(sa.select(Backup).where(*where).order_by(
            Backup.data_timestamp.desc(), Backup.created_at.desc()).limit(1)).first()


def _lock_parent(s, parent_id: str) -> Backup:
    """Lock the parent row while it is available. :raises InvalidBackup: (no parent)"""
    parent = s.scalars(sa.select(Backup).where(*MACHINE.live(parent_id),
                                               Backup.status == S.AVAILABLE)
                       .with_for_update()).first()
    if parent is None:
        raise exception.InvalidBackup(reason=NO_PARENT)
    return parent


def recount_dependents(db, *, backup_id: str, session=None) -> None:
    """num_dependent_backups := how many live backups name *backup_id* as their parent."""
    count = (sa.select(sa.func.count(_Child.id)).where(_Child.parent_id == backup_id,
                                                        _Child.deleted == sa.false())
             .scalar_subquery())
    with db.writer(session) as s:
        conditional.update(s, Backup, values={'num_dependent_backups': count},
                           where=[Backup.id == backup_id])


def create(db, *, values: dict, metadata: dict | None, source_action: str,
           reserve: Callable[..., list[str]]) -> Backup:
    """Insert a `creating` backup in one transaction with everything it needs.

    The source (its snapshot when values has `snapshot_id`, else its volume) moves into
    `backing-up` by CAS (*source_action* of the volume table: `backup` or `backup_in_use`),
    the parent (values' `parent_id`) is locked available, *reserve(session)* reserves the
    quota, the row and its metadata are inserted and the quota committed. Any refusal
    rolls all of it back.

    :raises VolumeNotFound, InvalidVolume, SnapshotNotFound, InvalidSnapshot, InvalidBackup,
        OverQuota:
    """
    now = utcnow()
    row = Backup(id=values.get('id') or str(uuid.uuid4()), status=S.CREATING, created_at=now,
                 **{k: v for k, v in values.items() if k not in ('id', 'status')})
    if row.data_timestamp is None:
        row.data_timestamp = now
    with db.writer() as s:
        if row.snapshot_id:
            db_snapshots.MACHINE.begin(db, row_id=row.snapshot_id, action='backup', session=s)
        else:
            db_volumes.MACHINE.begin(db, row_id=row.volume_id, action=source_action,
                                     session=s)
        if row.parent_id:
            _lock_parent(s, row.parent_id)
        reservations = reserve(s)
        s.add(row)
        s.flush()
        s.add_all(BackupMetadata(backup_id=row.id, key=k, value=v)
                  for k, v in (metadata or {}).items())
        db_reservations.commit(db, reservations=reservations, session=s)
        if row.parent_id:
            recount_dependents(db, backup_id=row.parent_id, session=s)
    LOG.info('Backup %s of volume %s: created, status creating', row.id, row.volume_id)
    return row


def release_source(db, *, backup: Backup, session=None) -> bool:
    """The backup's snapshot (or volume) leaves `backing-up` for where it was."""
    if backup.snapshot_id:
        return db_snapshots.MACHINE.finish(db, row_id=backup.snapshot_id, action='backup',
                                           session=session)
    return db_volumes.MACHINE.finish(db, row_id=backup.volume_id, action='backup',
                                     session=session)


def fail_unscheduled(db, *, backup: Backup, reason: str) -> bool:
    """A create no backup service took (no service, failed cast): backup `error` with
    *reason*, its source back where it was, in one transaction; False when it moved on."""
    with db.writer() as s:
        if not MACHINE.finish(db, row_id=backup.id, action='create', error=True,
                              values={'fail_reason': reason[:255]}, session=s):
            return False
        release_source(db, backup=backup, session=s)
    return True


def undo_create(db, *, backup: Backup, deltas: dict[str, int]) -> bool:
    """Undo a create whose cast was not sent: the row removed, its source back where it
    was and *deltas* (what the create consumed) taken off the usage, in one transaction;
    False when a service took it meanwhile (it has a host, or left `creating`)."""
    with db.writer() as s:
        if not MACHINE.destroy(db, row_id=backup.id, session=s,
                               where=[Backup.status == S.CREATING, Backup.host.is_(None)]):
            return False
        release_source(db, backup=backup, session=s)
        db_reservations.release(db, project_id=backup.project_id, session=s,
                                deltas={resource: -n for resource, n in deltas.items()})
    return True


def create_import(db, *, backup_id: str, values: dict, reserve) -> Backup:
    """Insert (or revive a soft-deleted row with the same id) an imported backup
    `creating`, its quota reserved and committed in the same transaction.

    :raises InvalidBackup: a live backup has that id; OverQuota:
    """
    with db.writer() as s:
        old = s.scalars(sa.select(Backup).where(Backup.id == backup_id)
                        .with_for_update()).first()
        if old is not None and not old.deleted:
            raise exception.InvalidBackup(reason='Backup already exists in database.')
        reservations = reserve(s)
        fresh = dict(values, status=S.CREATING, deleted=False, deleted_at=None,
                     volume_id=states.IMPORT_VOLUME_ID)
        if old is None:
            s.add(Backup(id=backup_id, **fresh))
        else:
            conditional.update(s, Backup, values=fresh, where=[Backup.id == backup_id])
        s.flush()
        db_reservations.commit(db, reservations=reservations, session=s)
    LOG.info('Backup %s: import record created, status creating', backup_id)
    return get(db, backup_id=backup_id)


def begin_restore(db, *, backup_id: str, volume_id: str, values: dict) -> Backup:
    """Backup `available` → `restoring` and the target volume `available` →
    `restoring-backup`, both or neither; the backup as now stored.

    :raises BackupNotFound, InvalidBackup, VolumeNotFound, InvalidVolume:
    """
    with db.writer() as s:
        db_volumes.MACHINE.begin(db, row_id=volume_id, action='restore_backup', session=s)
        return MACHINE.begin(db, row_id=backup_id, action='restore', session=s,
                             values=dict(values, restore_volume_id=volume_id))


def update(db, *, backup_id: str, values: dict, metadata: dict | None = None) -> Backup:
    """PUT: name, description and (3.43) the whole metadata, in any status.

    :raises BackupNotFound:
    """
    with db.writer() as s:
        if not conditional.update(s, Backup, values={**values, 'updated_at': utcnow()},
                                  where=MACHINE.live(backup_id)):
            raise exception.BackupNotFound(backup_id=backup_id)
        if metadata is not None:
            db_metadata.update(db, BackupMetadata, 'backup_id', owner_id=backup_id,
                               metadata=metadata, replace=True, session=s)
    return get(db, backup_id=backup_id)


def set_values(db, *, backup_id: str, values: dict, expected: str | None,
               session=None) -> bool:
    """Write *values* (host, service, temporary resources) while the status is *expected*
    (whatever it is with None); False when it is not, or the backup is gone."""
    where = MACHINE.live(backup_id)
    if expected is not None:
        where.append(Backup.status == expected)
    with db.writer(session) as s:
        return bool(conditional.update(s, Backup, values=values, where=where))


def status_of(db, *, backup_id: str, session=None) -> str | None:
    """The backup's status now (None once it is gone): a running backup re-reads it."""
    with db.reader(session) as s:
        return s.scalar(sa.select(Backup.status).where(*MACHINE.live(backup_id)))


def of_host(db, *, host: str, statuses) -> list[Backup]:
    """Live backups on *host* in *statuses* (the backup service's start-up cleanup)."""
    with db.reader() as s:
        return list(s.scalars(sa.select(Backup).where(
            Backup.host == host, Backup.deleted == sa.false(), Backup.status.in_(list(statuses)))
            .order_by(Backup.created_at)))


def unheld(db, *, statuses, before, limit: int) -> list[Backup]:
    """Live backups in *statuses*, unchanged since *before*, that no service holds (no
    workers row): operations whose cast, or the scheduler's, was lost. Oldest first."""
    held = sa.exists().where(Worker.resource_type == MACHINE.name,
                             Worker.resource_id == Backup.id)
    with db.reader() as s:
        return list(s.scalars(sa.select(Backup).where(
            Backup.deleted == sa.false(), Backup.status.in_(list(statuses)),
            sa.func.coalesce(Backup.updated_at, Backup.created_at) <= before, ~held)
            .order_by(Backup.created_at).limit(limit)))


def chain(db, *, backup: Backup) -> list[Backup]:
    """*backup* and its ancestors, newest first, up to the full backup."""
    found = [backup]
    with db.reader() as s:
        while found[-1].parent_id:
            parent = s.get(Backup, found[-1].parent_id)
            if parent is None:
                raise exception.InvalidBackup(
                    reason=f'Parent backup {found[-1].parent_id} is missing.')
            found.append(parent)
    return found


# --- listings ---------------------------------------------------------------

def _filter_clauses(filters: dict) -> list | None:
    """WHERE clauses of Cinder's backup filters: `metadata` pairs, any other key a column."""
    clauses = []
    columns = {}
    for key, value in filters.items():
        if key == 'metadata':
            if not isinstance(value, dict):
                return None
            clauses.extend(sa.exists().where(
                BackupMetadata.backup_id == Backup.id, BackupMetadata.deleted == sa.false(),
                BackupMetadata.key == k, BackupMetadata.value == v) for k, v in value.items())
        else:
            columns[key] = value
    extra = listing.column_clauses(Backup, columns)
    return None if extra is None else clauses + extra


# NOTE(marker): Cinder looks a backup marker up as a backup: BackupNotFound when unseen.
LISTING = listing.Listing(
    model=Backup, filter_clauses=_filter_clauses,
    marker_not_found=lambda marker: exception.BackupNotFound(backup_id=marker))


def get_all(db, *, project_id: str | None, filters: dict | None = None,
            marker: str | None = None, limit: int | None = None, offset: int | None = None,
            sort: list[tuple[str, str | None]] | None = None,
            sort_aliases: dict[str, str] | None = None, session=None) -> list[Backup]:
    """One page of backups (all projects when *project_id* is None); see Listing.get_all."""
    return LISTING.get_all(db, project_id=project_id, filters=filters, marker=marker,
                           limit=limit, offset=offset, sort=sort, sort_aliases=sort_aliases,
                           session=session)


def count(db, *, project_id: str | None, filters: dict | None = None, session=None) -> int:
    """How many backups match, ignoring pagination (`with_count`, 3.45)."""
    return LISTING.count(db, project_id=project_id, filters=filters, session=session)


def get_metadata(db, *, backup_ids: list[str], session=None) -> dict[str, dict[str, str]]:
    """{backup id: {key: value}}, for every id in one query."""
    return db_metadata.get(db, BackupMetadata, 'backup_id', ids=backup_ids, session=session)
