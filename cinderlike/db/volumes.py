"""volumes rows: create, lookups, listings with Cinder's filters, and every status transition.

Each transition is one compare-and-swap UPDATE built from states/volumes.py: the allowed
statuses and the guards' SQL predicates sit in the WHERE clause, so a lost race changes nothing.
"""

import functools
import uuid

import sqlalchemy as sa
from oslo_log import log as logging
from sqlalchemy import orm

from cinderlike import exception
from cinderlike.db import conditional, id_lists, listing, transitions
from cinderlike.db import engine as db_engine
from cinderlike.db import metadata as db_metadata
from cinderlike.db import services as db_services
from cinderlike.db import workers as db_workers
from cinderlike.db.models import (
    Snapshot,
    Volume,
    VolumeAdminMetadata,
    VolumeAttachment,
    VolumeMetadata,
    VolumeType,
    utcnow,
)
from cinderlike.states import volumes as states

LOG = logging.getLogger(__name__)

# Guard names of the state table → SQL predicates on the volume row.
GUARDS = {
    'not_attached': lambda: sa.or_(Volume.attach_status.is_(None),
                                   Volume.attach_status != states.AttachStatus.ATTACHED),
    'migration_deletable': lambda: _migration_in(states.NOT_MIGRATING),
    'no_snapshots': lambda: ~_snapshots(),
    'snapshots_deletable': lambda: ~_snapshots(
        Snapshot.status.not_in(states.CASCADE_SNAPSHOT_STATUSES)),
    'no_group_snapshots': lambda: ~_snapshots(Snapshot.group_snapshot_id.is_not(None)),
    'not_in_group': lambda: Volume.group_id.is_(None),
    'not_migrating': lambda: _migration_in(states.EXTENDABLE_MIGRATION),
    'no_migration_running': lambda: _migration_in(states.NOT_MIGRATING),
    'multiattach': lambda: Volume.multiattach.is_(True),
    'attached': lambda: Volume.attach_status == states.AttachStatus.ATTACHED,
}

def _migration_in(allowed) -> sa.ColumnElement:
    named = [s for s in allowed if s is not None]
    return sa.or_(Volume.migration_status.is_(None), Volume.migration_status.in_(named))


def _snapshots(*where) -> sa.Exists:
    """EXISTS a live snapshot of the volume (matching *where*)."""
    return sa.exists().where(Snapshot.volume_id == Volume.id, Snapshot.deleted == sa.false(),
                             *where)


def other_project_snapshots() -> sa.ColumnElement:
    """NOT EXISTS a snapshot of the volume owned by another project (a non-admin's cascade)."""
    return ~_snapshots(Snapshot.project_id != Volume.project_id)


# NOTE(order): Cinder names the expected statuses in this order in its messages.
_DELETE_TAIL = ('must not be migrating, attached, belong to a group, have snapshots, awaiting '
                'a transfer, or be disassociated from snapshots after volume transfer.')


_INSERT = sa.insert(Volume.__table__)
_MANAGER = orm.instrumentation.manager_of_class(Volume)
_ATTRIBUTES = tuple((attr.key, attr.columns[0].key) for attr in sa.inspect(Volume).column_attrs
                    if isinstance(attr.columns[0], sa.Column))


def _inserted_row(session, inserted: dict) -> Volume:
    """The Volume *inserted* (the INSERT's parameters, column defaults included) made,
    in *session* as if read back.

    NOTE(perf): the unit of work's flush of a new instance cost ~400 Python calls per
    create and the mapped constructor ~300; this is what the ORM does loading a row: the
    values go into the instance's state, which joins the session as persistent.
    """
    orm.configure_mappers()
    row = _MANAGER.new_instance()
    orm.attributes.instance_state(row).dict.update(
        {attribute: inserted.get(column) for attribute, column in _ATTRIBUTES})
    orm.make_transient_to_detached(row)
    session.add(row)
    return row


def create(db, *, values: dict, metadata: dict | None = None,
           admin_metadata: dict | None = None, session=None) -> Volume:
    """Insert a volume (and its metadata); a new id unless *values* has one."""
    with db.writer(session) as s:
        inserted = db_engine.execute(
            s, _INSERT, dict(values, id=values.get('id') or str(uuid.uuid4()))
        ).last_inserted_params()
        row = _inserted_row(s, inserted)
        for model, items in ((VolumeMetadata, metadata), (VolumeAdminMetadata, admin_metadata)):
            s.add_all(model(volume_id=row.id, key=k, value=v) for k, v in (items or {}).items())
        s.flush()
    return row


def get(db, *, volume_id: str, project_id: str | None = None, session=None,
        lock: bool = False) -> Volume:
    """The live volume; *project_id* limits the lookup to that project (non-admins); *lock*
    holds it FOR UPDATE in *session*'s transaction.

    :raises VolumeNotFound:
    """
    return MACHINE.get(db, row_id=volume_id, project_id=project_id, session=session, lock=lock)


def get_any(db, *, volume_id: str, session=None) -> Volume | None:
    """The volume row even when soft-deleted (usage payloads of what outlived it)."""
    with db.reader(session) as s:
        return s.get(Volume, volume_id)


def update(db, *, volume_id: str, values: dict, session=None) -> None:
    """Change name/description/bootable-like fields of a volume not in maintenance.

    :raises VolumeNotFound, InvalidVolume:
    """
    # NOTE(maintenance): not a status change, so not in the state table; the one status
    # that forbids it is still checked in the same UPDATE.
    with db.writer(session) as s:
        count = conditional.update(
            s, Volume, values=values,
            where=[*MACHINE.live(volume_id), Volume.status != states.Status.MAINTENANCE])
        if not count:
            get(db, volume_id=volume_id, session=s)
            raise exception.InvalidVolume(
                reason='The volume cannot be updated during maintenance.')


def destroy(db, *, volume_id: str, where=(), session=None) -> bool:
    """Soft-delete the volume and its metadata when *where* still holds; False otherwise."""
    return MACHINE.destroy(db, row_id=volume_id, where=where,
                           values={'terminated_at': utcnow()}, session=session)


def destroy_unscheduled(db, *, volume_id: str, session=None) -> bool:
    """Soft-delete a volume no scheduler has placed yet (host NULL), with the workers row its
    create left; False once it has a host."""
    with db.writer(session) as s:
        if not destroy(db, volume_id=volume_id, where=[Volume.host.is_(None)], session=s):
            return False
        db_workers.drop_untaken(s, resource_type=MACHINE.name, resource_ids=[volume_id])
    return True


# --- transitions ------------------------------------------------------------

def _reserve_refusal(expected) -> callable:
    def text(row: Volume) -> str:
        if 'error' in (row.status or ''):
            # NOTE(cinder): the trailing space is Cinder's.
            return ('Volume attachments can not be created if the volume is in an error '
                    f'state. The Volume {row.id} currently has a status of: {row.status} ')
        return (f"Volume {row.id} status must be {' or '.join(expected)} to reserve, but "
                f'the current status is {row.status}.')
    return text


def _legacy_reserve_refusal(expected) -> callable:
    return lambda row: (f"Volume status must be {' or '.join(expected)} to reserve, but the "
                        f'status is {row.status}.')


_ATTACH_REFUSALS = {
    'reserve_attachment': _reserve_refusal(states.RESERVABLE),
    'reserve_attachment_multiattach': _reserve_refusal(states.RESERVABLE_MULTIATTACH),
    'reserve': _legacy_reserve_refusal(states.LEGACY_RESERVABLE),
    'reserve_multiattach': _legacy_reserve_refusal(states.LEGACY_RESERVABLE_MULTIATTACH),
    'begin_detaching': lambda row: ("Unable to detach volume. Volume status must be "
                                    "'in-use' and attach_status must be 'attached' to "
                                    'detach.'),
    'attach': lambda row: ('volume is already attached and multiple attachments are not '
                           'enabled' if row.status == states.Status.IN_USE else
                           f'Volume {row.id} status must be available, attaching or reserved '
                           f'to attach, but the current status is {row.status}.'),
    'attach_multiattach': lambda row: (f'Volume {row.id} status must be available, '
                                       f'attaching, reserved or in-use to attach, but the '
                                       f'current status is {row.status}.'),
}


def _refusal(action: str, row: Volume) -> exception.InvalidVolume:
    """Cinder's 400 for *action* refused on *row*, naming the states it expects."""
    if action in ('delete', 'delete_cascade', 'unmanage'):
        expected = ' or '.join(states.DELETABLE)
        return exception.InvalidVolume(reason=f'Volume status must be {expected} and '
                                              f'{_DELETE_TAIL}')
    if action in ('force_delete', 'force_delete_cascade'):
        return exception.InvalidVolume(reason=f'Volume {_DELETE_TAIL}')
    if action in _ATTACH_REFUSALS:
        return exception.InvalidVolume(reason=_ATTACH_REFUSALS[action](row))
    allowed = sorted(states.TRANSITIONS[action].allowed_from)
    # NOTE(wording): Cinder prints its `expected` dict of plain strings, never our enums.
    names = [str(status) for status in allowed]
    shown = repr(names[0]) if len(names) == 1 else repr(tuple(names))
    if action.startswith('extend'):
        return exception.InvalidVolume(
            reason=f"Volume {row.id} status must be '{{'status': {shown}}}' to extend, "
                   f'currently {row.status}.')
    return exception.InvalidVolume(
        reason=f"Volume {row.id} status must be {' or '.join(allowed)} to {action}, "
               f'but the current status is {row.status}.')


MACHINE = transitions.Machine(
    name='Volume', model=Volume, table=states.TRANSITIONS, guards=GUARDS, refusal=_refusal,
    not_found=lambda volume_id: exception.VolumeNotFound(volume_id=volume_id),
    children=((VolumeMetadata, 'volume_id'), (VolumeAdminMetadata, 'volume_id')))


def lock_in(session, *, volume_id: str, status: str) -> bool:
    """Lock the live volume's row (to the end of *session*'s transaction) when it is in
    *status*; False otherwise, nothing locked."""
    return session.scalars(sa.select(Volume.id).where(
        *MACHINE.live(volume_id), Volume.status == status).with_for_update()).first() is not None


def same_placement(volume: Volume) -> sa.ColumnElement:
    """SQL predicate: the volume is still placed as *volume* was read (host and cluster), so
    an outcome computed from that read (which claim to give back) still applies."""
    def same(column, value):
        return column.is_(None) if value is None else column == value
    return sa.and_(same(Volume.host, volume.host), same(Volume.cluster_name,
                                                        volume.cluster_name))
def on_backend(*, host: str, cluster_name: str | None = None) -> sa.ColumnElement:
    """SQL: a volume of backend *host* (`host@backend`, any pool) or of its cluster."""
    mine = db_services.host_level(Volume.host, host)
    return sa.or_(mine, Volume.cluster_name == cluster_name) if cluster_name else mine


def of_backend(db, *, host: str, cluster_name: str | None = None) -> list[Volume]:
    """The live volumes of a backend (Cinder's _get_my_volumes)."""
    with db.reader() as s:
        return list(s.scalars(sa.select(Volume).where(
            Volume.deleted == sa.false(), on_backend(host=host, cluster_name=cluster_name))))


def unplaced(volume_id: str | None = None) -> list:
    """WHERE clauses of a create no scheduler placed yet: `creating`, no backend."""
    where = [Volume.deleted == sa.false(), Volume.status == states.Status.CREATING,
             Volume.host.is_(None)]
    if volume_id is not None:
        where.append(Volume.id == volume_id)
    return where


def fail_unplaced(db, *, volume_id: str | None = None, before=None,
                  session=None) -> dict[str, str]:
    """`error` for a create that will not be placed (no backend fits, a scheduler died
    placing it: *before* selects every such volume unchanged since then), its workers row
    removed; {volume id: project id} of those failed. A volume placed meanwhile is left
    alone."""
    where = unplaced(volume_id)
    if before is not None:
        where.append(sa.func.coalesce(Volume.updated_at, Volume.created_at) <= before)
    with db.writer(session) as s:
        failed = dict(s.execute(sa.select(Volume.id, Volume.project_id).where(*where)
                                .with_for_update()).all())
        if failed:
            conditional.update(s, Volume, values={'status': states.Status.ERROR},
                               where=[*where, Volume.id.in_(list(failed))])
            db_workers.drop_untaken(s, resource_type=MACHINE.name, resource_ids=list(failed))
    if failed and volume_id is not None:
        LOG.info('Volume %s: create failed before placement, status error', volume_id)
    return failed


# --- listings ---------------------------------------------------------------

_TIME_OPS = {'gt': '__gt__', 'gte': '__ge__', 'eq': '__eq__', 'neq': '__ne__',
             'lt': '__lt__', 'lte': '__le__'}


def _metadata_match(key: str, value: str):
    """Cinder matches a metadata filter against user or admin metadata."""
    return sa.or_(*(sa.exists().where(m.volume_id == Volume.id, m.deleted == sa.false(),
                                      m.key == key, m.value == value)
                    for m in (VolumeMetadata, VolumeAdminMetadata)))


def _filter_clauses(filters: dict) -> list | None:
    """WHERE clauses for Cinder's volume filters; None when a key names no column.

    Values arrive parsed: `metadata` a dict, `created_at`/`updated_at` may be
    [(op, datetime), ...] comparisons (3.60); other keys are columns (db/listing.py
    column_clauses: lists mean IN, `<key>~` means LIKE).
    """
    clauses = []
    columns = {}
    for key, value in filters.items():
        if key == 'no_migration_targets':
            clauses.append(sa.or_(Volume.migration_status.is_(None),
                                  Volume.migration_status.not_like(f'{states.MigrationStatus.TARGET_PREFIX}%')))
        elif key == 'metadata':
            if not isinstance(value, dict):
                return None  # `metadata=garbage`: Cinder's non-dict filter matches nothing
            clauses.extend(_metadata_match(str(k), str(v)) for k, v in value.items())
        elif key in ('created_at', 'updated_at') and isinstance(value, (list, tuple)):
            column = getattr(Volume, key)
            clauses.extend(getattr(column, _TIME_OPS[op])(when) for op, when in value)
        else:
            columns[key] = value
    extra = listing.column_clauses(Volume, columns)
    return None if extra is None else clauses + extra


LISTING = listing.Listing(model=Volume, filter_clauses=_filter_clauses,
                          marker_not_found=lambda marker: exception.MarkerNotFound(marker=marker),
                          plain_rows=True)


def get_all(db, *, project_id: str | None, filters: dict | None = None,
            marker: str | None = None, limit: int | None = None, offset: int | None = None,
            sort: list[tuple[str, str | None]] | None = None,
            sort_aliases: dict[str, str] | None = None,
            columns: tuple[str, ...] | None = None, computed: tuple = (),
            session=None) -> list[sa.Row]:
    """One page of volumes (all projects when *project_id* is None), as read-only rows
    with the Volume columns (or *columns*) by name, and *computed* (detail_columns());
    see Listing.get_all."""
    return LISTING.get_all(db, project_id=project_id, filters=filters, marker=marker,
                           limit=limit, offset=offset, sort=sort,
                           sort_aliases=sort_aliases or {'name': 'display_name'},
                           columns=columns, computed=computed, session=session)


@functools.cache
def detail_columns(dialect: str, admin_keys: tuple[str, ...]) -> tuple:
    """get_all()'s *computed* columns for detail views: `metadata` and `admin_metadata` (its
    *admin_keys* only), each volume's live keys as a dict (None when it has none),
    `attached`, whether get_attachments() would find any, and `type_name`, its type's name."""
    owner = Volume.__table__.c.id
    attachments = VolumeAttachment.__table__
    attached = sa.exists().where(
        attachments.c.volume_id == owner, attachments.c.deleted == sa.false(),
        attachments.c.attach_status == states.AttachStatus.ATTACHED)
    return (('metadata', db_metadata.as_object(VolumeMetadata, 'volume_id', owner, dialect)),
            ('admin_metadata', db_metadata.as_object(VolumeAdminMetadata, 'volume_id', owner,
                                                     dialect, keys=admin_keys)),
            ('attached', attached), ('type_name', _TYPE_NAME))


def count(db, *, project_id: str | None, filters: dict | None = None, session=None) -> int:
    """How many volumes match, ignoring pagination (`with_count`, 3.45)."""
    return LISTING.count(db, project_id=project_id, filters=filters, session=session)


def summary(db, *, project_id: str | None) -> tuple[int, int, dict[str, list[str]]]:
    """(count, total size, {metadata key: [distinct values]}) of the live volumes."""
    where = LISTING.scope(project_id, None)
    # NOTE(decimal): MariaDB's SUM() of an integer column is a DECIMAL, which PyMySQL returns
    # as Decimal (and JSON cannot encode); the CAST makes it an integer on every dialect.
    size_sum = sa.cast(sa.func.coalesce(sa.func.sum(Volume.size), 0), sa.BigInteger)
    with db.reader() as s:
        total, size = s.execute(sa.select(sa.func.count(), size_sum).where(*where)).one()
        pairs = s.execute(sa.select(VolumeMetadata.key, VolumeMetadata.value).distinct()
                          .join(Volume, Volume.id == VolumeMetadata.volume_id)
                          .where(*where, VolumeMetadata.deleted == sa.false())
                          .order_by(VolumeMetadata.key, VolumeMetadata.value)).all()
    metadata: dict[str, list[str]] = {}
    for key, value in pairs:
        metadata.setdefault(key, []).append(value)
    return total, size, metadata


# --- metadata ---------------------------------------------------------------

# Admin metadata of os-update_readonly_flag, stored as Cinder does ('True' / 'False').
READONLY_KEY = 'readonly'


def readonly_flag(readonly: bool) -> dict[str, str]:
    """The admin metadata item that marks a volume read-only (or not)."""
    return {READONLY_KEY: str(readonly)}


def is_readonly(admin_metadata: dict[str, str]) -> bool:
    """Whether a volume's admin metadata marks it read-only."""
    return admin_metadata.get(READONLY_KEY) == str(True)


def get_metadata(db, *, volume_ids: list[str], admin: bool = False,
                 session=None) -> dict[str, dict[str, str]]:
    """{volume id: {key: value}} of user (or admin) metadata, for every id in one query."""
    model = VolumeAdminMetadata if admin else VolumeMetadata
    return db_metadata.get(db, model, 'volume_id', ids=volume_ids, session=session)


def update_metadata(db, *, volume_id: str, metadata: dict[str, str], replace: bool = False,
                    admin: bool = False, session=None) -> dict[str, str]:
    """Merge *metadata* into the volume's (or make it the whole set with *replace*).

    Returns the metadata as stored afterwards.
    """
    model = VolumeAdminMetadata if admin else VolumeMetadata
    return db_metadata.update(db, model, 'volume_id', owner_id=volume_id, metadata=metadata,
                              replace=replace, session=session)


def delete_metadata(db, *, volume_id: str, key: str, session=None) -> None:
    """:raises VolumeMetadataNotFound:"""
    if not db_metadata.delete(db, VolumeMetadata, 'volume_id', owner_id=volume_id, key=key,
                              session=session):
        raise exception.VolumeMetadataNotFound(volume_id=volume_id, metadata_key=key)


# --- what views show beside the row --------------------------------------------

@functools.cache
def _attached_statement(dialect: str):
    """The attached attachments of the volumes :ids, built once per dialect."""
    return sa.select(VolumeAttachment).where(
        id_lists.among(VolumeAttachment.volume_id, dialect),
        VolumeAttachment.deleted == sa.false(),
        VolumeAttachment.attach_status == states.AttachStatus.ATTACHED)


def get_attachments(db, *, volume_ids: list[str],
                    session=None) -> dict[str, list[VolumeAttachment]]:
    """{volume id: [attached attachments]}: Cinder lists only attach_status 'attached'."""
    found: dict[str, list[VolumeAttachment]] = {vid: [] for vid in volume_ids}
    if not volume_ids:
        return found
    with db.reader(session) as s:
        for row in s.scalars(_attached_statement(db.dialect), {'ids': volume_ids}):
            found[row.volume_id].append(row)
    return found


@functools.cache
def _type_names_statement(dialect: str):
    """NOTE(perf): built once per dialect, bound at execution (the delete of every volume
    and every detail listing read it)."""
    return sa.select(VolumeType.id, VolumeType.name).where(
        id_lists.among(VolumeType.id, dialect))


# A volume's type's name (deleted types included: a volume keeps its type), as a column of
# the volume's own SELECT.
_TYPE_NAME = sa.select(VolumeType.name).where(
    VolumeType.id == Volume.volume_type_id).scalar_subquery()

# A volume read with this option (Machine.get's *options*) holds its type's name in
# `type_name`. NOTE(perf): the volume service's delete reads it with its take, in the take's
# SELECT, not in a statement of its own.
WITH_TYPE_NAME = orm.with_expression(Volume.type_name, _TYPE_NAME)


def get_type_names(db, *, type_ids: set[str], session=None) -> dict[str, str]:
    """{volume type id: name}, deleted types included (a volume keeps its type)."""
    if not type_ids:
        return {}
    with db.reader(session) as s:
        return dict(db_engine.execute(s, _type_names_statement(db.dialect),
                                      {'ids': sorted(type_ids)}).all())
