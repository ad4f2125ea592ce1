"""volume_types rows, their extra specs and project access: lookups and changes.

Read by cinderlike-api (types API, volume create) and the scheduler (extra specs). Name
uniqueness has no constraint in Cinder's schema, so creates and renames run SERIALIZABLE.
"""

import dataclasses
import datetime
import functools
import uuid

import sqlalchemy as sa
from oslo_log import log as logging
from oslo_utils import uuidutils

from cinderlike import exception
from cinderlike.db import conditional, listing, serializable
from cinderlike.db import engine as db_engine
from cinderlike.db import quotas as db_quotas
from cinderlike.db.models import (
    DefaultVolumeType,
    Encryption,
    Quota,
    QuotaClass,
    QuotaUsage,
    Volume,
    VolumeType,
    VolumeTypeExtraSpecs,
    VolumeTypeProjects,
    utcnow,
)

LOG = logging.getLogger(__name__)

DEFAULT_VOLUME_TYPE = '__DEFAULT__'


@dataclasses.dataclass(frozen=True)
class VolumeTypeRecord:
    """One live volume type with its extra specs, detached from any session."""

    id: str
    name: str | None
    description: str | None
    is_public: bool
    qos_specs_id: str | None
    created_at: datetime.datetime | None
    updated_at: datetime.datetime | None
    extra_specs: dict

    def as_payload(self) -> dict:
        """The type as Cinder's notifications carry it."""
        return {key: (value.isoformat() if isinstance(value, datetime.datetime) else value)
                for key, value in dataclasses.asdict(self).items()}


def _live():
    return VolumeType.deleted == sa.false()


def _visible(stmt, *, project_id, is_admin):
    """Cinder's rule: admins see every type, others public ones and those shared with them."""
    if is_admin:
        return stmt
    shared = sa.exists().where(VolumeTypeProjects.volume_type_id == VolumeType.id,
                               VolumeTypeProjects.project_id == project_id,
                               VolumeTypeProjects.deleted == 0)
    return stmt.where(sa.or_(VolumeType.is_public.is_(True), shared))


# NOTE(perf): the lookups every POST /volumes makes (its type, the project's default, their
# specs) are built once and bound at execution, and read on the session's connection: building
# them per call and loading ORM instances cost more than running them.
_TYPES = VolumeType.__table__
_SPECS = VolumeTypeExtraSpecs.__table__
_SPECS_OF = sa.select(_SPECS.c.volume_type_id, _SPECS.c.key, _SPECS.c.value).where(
    _SPECS.c.volume_type_id.in_(sa.bindparam('ids', expanding=True)),
    _SPECS.c.deleted == sa.false()).order_by(_SPECS.c.id)
_PROJECT_DEFAULT = sa.select(DefaultVolumeType.__table__.c.volume_type_id).where(
    DefaultVolumeType.__table__.c.project_id == sa.bindparam('project_id'),
    DefaultVolumeType.__table__.c.deleted == sa.false()).scalar_subquery()


@functools.cache
def _type_statement(column: str, is_admin: bool, lock: str | None = None, specs: bool = True):
    """The live types whose *column* is :key, as an admin (else :project_id) sees them,
    with a row per live spec of each type (spec_key and spec_value, None for a type without
    specs) unless not *specs*; the type rows locked FOR SHARE or FOR UPDATE when *lock* is
    'share' or 'update'.

    *column* 'default': :project_id's default type first, then the types named :key; each
    row says the project's default type id (project_default).
    """
    if column == 'default':
        match = sa.or_(_TYPES.c.id == _PROJECT_DEFAULT, _TYPES.c.name == sa.bindparam('key'))
        order = [sa.case((_TYPES.c.id == _PROJECT_DEFAULT, 0), else_=1)]
        extra = [_PROJECT_DEFAULT.label('project_default')]
    else:
        match, order, extra = _TYPES.c[column] == sa.bindparam('key'), [], []
    stmt = sa.select(_TYPES, *extra).where(match, _live())
    stmt = _visible(stmt, project_id=sa.bindparam('project_id'), is_admin=is_admin)
    order.append(_TYPES.c.created_at)
    if specs:
        # NOTE(perf): the specs come in the same round trip.
        stmt = (stmt.add_columns(_SPECS.c.key.label('spec_key'),
                                 _SPECS.c.value.label('spec_value'))
                .outerjoin(_SPECS, sa.and_(_SPECS.c.volume_type_id == _TYPES.c.id,
                                           _SPECS.c.deleted == sa.false())))
        order.extend((_TYPES.c.id, _SPECS.c.id))
    if lock is not None:
        # NOTE(lock): the type rows only (OF); MariaDB, which has no OF, also locks the
        # spec rows it reads with them, which a spec change locks after the type row anyway.
        stmt = stmt.with_for_update(read=lock == 'share', of=_TYPES)
    return stmt.order_by(*order)


def _specs_of(session, type_ids) -> dict[str, dict]:
    specs: dict[str, dict] = {type_id: {} for type_id in type_ids}
    for type_id, key, value in db_engine.execute(session, _SPECS_OF, {'ids': list(type_ids)}):
        specs[type_id][key] = value
    return specs


def _record(row, specs: dict) -> VolumeTypeRecord:
    return VolumeTypeRecord(id=row.id, name=row.name, description=row.description,
                            is_public=row.is_public, qos_specs_id=row.qos_specs_id,
                            created_at=row.created_at, updated_at=row.updated_at,
                            extra_specs=specs)


def _records(session, rows) -> list[VolumeTypeRecord]:
    specs = _specs_of(session, [row.id for row in rows])
    return [_record(row, specs[row.id]) for row in rows]


def _first_row(session, column: str, key, *, project_id, is_admin,
               for_share: bool = False) -> tuple[sa.Row | None, VolumeTypeRecord | None]:
    """The first row of the live types whose *column* is *key* (see _type_statement), and
    that type's record with its specs; *for_share* holds the type rows it read until the
    transaction ends."""
    rows = db_engine.execute(
        session, _type_statement(column, bool(is_admin), 'share' if for_share else None),
        {'key': key, 'project_id': project_id})
    first, specs = None, {}
    for row in rows:
        if first is None:
            first = row
        elif row.id != first.id:
            break
        if row.spec_key is not None:
            specs[row.spec_key] = row.spec_value
    rows.close()
    return first, None if first is None else _record(first, specs)


def _first(session, column: str, key, **scope) -> VolumeTypeRecord | None:
    """The first live type whose *column* is *key*, with its specs."""
    return _first_row(session, column, key, **scope)[1]


def lock_row(session, *, type_id, read: bool = False) -> sa.Row | None:
    """SELECT ... FOR UPDATE (FOR SHARE when *read*) of the live type row, in *session*."""
    stmt = _type_statement('id', True, 'share' if read else 'update', specs=False)
    return db_engine.execute(session, stmt, {'key': type_id}).first()


def get(db, *, type_id, project_id=None, is_admin=True, session=None,
        for_share=False) -> VolumeTypeRecord:
    """The live type *type_id* as the caller may see it.

    *for_share* (with the caller's *session*) holds a shared row lock until that transaction
    ends, so a concurrent `destroy` waits and then sees the volume the caller inserted.

    :raises VolumeTypeNotFound:
    """
    with db.reader(session) as s:
        record = _first(s, 'id', type_id, project_id=project_id, is_admin=is_admin,
                        for_share=for_share)
    if record is None:
        raise exception.VolumeTypeNotFound(volume_type_id=type_id)
    return record


def get_by_name(db, *, name, project_id=None, is_admin=True, session=None,
                for_share=False) -> VolumeTypeRecord:
    """*for_share* as get()'s.

    :raises VolumeTypeNotFoundByName:
    """
    with db.reader(session) as s:
        record = _first(s, 'name', name, project_id=project_id, is_admin=is_admin,
                        for_share=for_share)
    if record is None:
        raise exception.VolumeTypeNotFoundByName(volume_type_name=name)
    return record


def get_by_name_or_id(db, *, ctx_project_id, is_admin, name_or_id, session=None,
                      for_share=False) -> VolumeTypeRecord:
    """A type by id, or by name (a name may itself look like a UUID), as Cinder resolves it;
    *for_share* as get()'s.

    :raises VolumeTypeNotFound: (VolumeTypeNotFoundByName for a non-UUID name)
    """
    scope = {'project_id': ctx_project_id, 'is_admin': is_admin, 'session': session,
             'for_share': for_share}
    if not uuidutils.is_uuid_like(name_or_id):
        return get_by_name(db, name=name_or_id, **scope)
    try:
        return get(db, type_id=name_or_id, **scope)
    except exception.VolumeTypeNotFound:
        try:
            return get_by_name(db, name=name_or_id, **scope)
        except exception.VolumeTypeNotFoundByName:
            raise exception.VolumeTypeNotFound(volume_type_id=name_or_id) from None


def get_extra_specs(db, *, type_id, session=None) -> dict:
    """key -> value of the type's live extra specs (empty for an unknown type)."""
    with db.reader(session) as s:
        return _specs_of(s, [type_id])[type_id]


def get_default_for_project(db, *, project_id, conf_default_name, session=None,
                            for_share=False) -> VolumeTypeRecord:
    """The type a volume gets when none is asked for: the project's default (3.62), else the
    `default_volume_type` option (`__DEFAULT__` unless an operator changed it); *for_share*
    as get()'s.

    :raises VolumeTypeDefaultMisconfiguredError: the option names no live type.
    """
    with db.reader(session) as s:
        row, record = _first_row(s, 'default', conf_default_name, project_id=project_id,
                                 is_admin=True, for_share=for_share)
        type_id = (row.project_default if row is not None else
                   db_engine.execute(s, sa.select(_PROJECT_DEFAULT),
                                     {'project_id': project_id}).scalar())
    if type_id is not None and (record is None or record.id != type_id):
        LOG.warning('Default type %s of project %s is gone', type_id, project_id)
    if record is None:
        LOG.error('Default volume type is not found. Please check default_volume_type '
                  'config: %s', conf_default_name)
        raise exception.VolumeTypeDefaultMisconfiguredError(volume_type_name=conf_default_name)
    return record


def _filter_specs(stmt, extra_specs: dict):
    """Every spec must match; `RESKEY:availability_zones` matches a substring, as Cinder."""
    for key, value in extra_specs.items():
        match = (VolumeTypeExtraSpecs.value.like(f'%{value}%')
                 if key == 'RESKEY:availability_zones'
                 else VolumeTypeExtraSpecs.value == value)
        stmt = stmt.where(sa.exists().where(
            VolumeTypeExtraSpecs.volume_type_id == VolumeType.id,
            VolumeTypeExtraSpecs.key == key, match, VolumeTypeExtraSpecs.deleted == sa.false()))
    return stmt


def _filter_public(stmt, *, is_public, project_id):
    if is_public is None:
        return stmt
    wanted = VolumeType.is_public.is_(bool(is_public))
    if is_public and project_id is not None:
        # NOTE(is_public): "public" listings also show the caller's shared private types.
        wanted = sa.or_(wanted, sa.exists().where(
            VolumeTypeProjects.volume_type_id == VolumeType.id,
            VolumeTypeProjects.project_id == project_id, VolumeTypeProjects.deleted == 0))
    return stmt.where(wanted)


_FILTER_COLUMNS = {'id': VolumeType.id, 'name': VolumeType.name,
                   'description': VolumeType.description, 'qos_specs_id': VolumeType.qos_specs_id}


def get_all(db, *, project_id, is_public=True, extra_specs=None, filters=None, marker=None,
            limit=None, offset=None, sort=None) -> list[VolumeTypeRecord]:
    """Live types for a listing, in *sort* order (default newest first), one page of them.

    *filters* are admin column filters; a key that is no column matches nothing, as Cinder.

    A *marker* that is no live type is ignored, as Cinder.

    :raises InvalidInput: a bad sort key.
    """
    where = [_live()]
    for key, value in (filters or {}).items():
        if key not in _FILTER_COLUMNS:
            return []
        where.append(_FILTER_COLUMNS[key] == value)
    stmt = _filter_public(sa.select(VolumeType).where(*where), is_public=is_public,
                          project_id=project_id)
    stmt = _filter_specs(stmt, extra_specs or {})
    pairs = listing.sort_params(VolumeType, sort)
    with db.reader() as s:
        if marker is not None:
            marker_row = s.scalars(sa.select(VolumeType).where(VolumeType.id == marker,
                                                                _live())).first()
            # NOTE(marker): Cinder's marker lookup for types finds None and pages from the
            # start; it never raises.
            if marker_row is not None:
                stmt = stmt.where(listing.after_marker(pairs, marker_row))
        stmt = listing.order_by(stmt, pairs).offset(offset).limit(limit)
        return _records(s, list(s.scalars(stmt)))


def _name_taken(session, name, *, other_than=None) -> bool:
    stmt = sa.select(VolumeType.id).where(VolumeType.name == name, _live())
    if other_than is not None:
        stmt = stmt.where(VolumeType.id != other_than)
    return session.scalar(stmt.limit(1)) is not None


def create(db, *, name, description=None, is_public=True, extra_specs=None, projects=(),
           type_id=None) -> VolumeTypeRecord:
    """Insert a type with its extra specs and project access.

    :raises VolumeTypeExists: a live type has this name or id (a concurrent create of the
        same name included: exactly one of them wins).
    """
    type_id = type_id or str(uuid.uuid4())

    def work(session):
        if _name_taken(session, name):
            raise exception.VolumeTypeExists(id=name)
        if session.get(VolumeType, type_id) is not None:
            raise exception.VolumeTypeExists(id=type_id)
        session.add(VolumeType(id=type_id, name=name, description=description,
                               is_public=is_public))
        session.flush()
        session.add_all(VolumeTypeExtraSpecs(volume_type_id=type_id, key=key, value=value)
                        for key, value in (extra_specs or {}).items())
        session.add_all(VolumeTypeProjects(volume_type_id=type_id, project_id=project)
                        for project in projects)
        session.flush()
        return get(db, type_id=type_id, session=session)

    return serializable.run(db, work)


def _rename_quota_resources(session, old_name, new_name) -> None:
    """Per-type quota rows follow the type's new name (Cinder's update_quota_resource)."""
    for base in db_quotas.TYPE_RESOURCES:
        for model in (Quota, QuotaClass, QuotaUsage):
            conditional.update(session, model, values={'resource': f'{base}_{new_name}'},
                               where=[model.resource == f'{base}_{old_name}',
                                      model.deleted == sa.false()])


def update(db, *, type_id, name=None, description=None, is_public=None) -> VolumeTypeRecord:
    """Change what is given (None = keep); returns the updated type.

    :raises VolumeTypeNotFound, VolumeTypeExists: (another live type has *name*)
    """
    values = {key: value for key, value in
              (('name', name), ('description', description), ('is_public', is_public))
              if value is not None}

    def work(session):
        if name is not None and _name_taken(session, name, other_than=type_id):
            raise exception.VolumeTypeExists(id=name)
        old_name = session.scalar(sa.select(VolumeType.name).where(VolumeType.id == type_id,
                                                                   _live()))
        count = conditional.update(session, VolumeType, values=dict(values, updated_at=utcnow()),
                                   where=[VolumeType.id == type_id, _live()])
        if not count:
            raise exception.VolumeTypeNotFound(volume_type_id=type_id)
        if name and old_name != name:
            _rename_quota_resources(session, old_name, name)
        return get(db, type_id=type_id, session=session)

    return serializable.run(db, work)


def _check_deletable(db, session, row, *, conf_default_name):
    """Cinder's order: project defaults, the configured default, then volumes.

    NOTE(last_type): Cinder also refuses to delete the only type left; the configured default
    must exist and differ from this one, so at least two live types are always present here.
    """
    if session.scalar(sa.select(DefaultVolumeType.project_id).where(
            DefaultVolumeType.volume_type_id == row.id,
            DefaultVolumeType.deleted == sa.false()).limit(1)) is not None:
        raise exception.VolumeTypeDefaultDeletionError(volume_type_id=row.id)
    default_id = session.scalar(sa.select(VolumeType.id).where(
        VolumeType.name == conf_default_name, _live()).limit(1))
    if default_id is None:
        raise exception.VolumeTypeDefaultMisconfiguredError(volume_type_name=conf_default_name)
    if default_id == row.id:
        raise exception.VolumeTypeDefaultDeletionError(volume_type_id=row.id)
    if has_volumes(db, type_id=row.id, session=session):
        raise exception.VolumeTypeInUse(volume_type_id=row.id)


def destroy(db, *, type_id, conf_default_name) -> VolumeTypeRecord:
    """Soft-delete a type with its extra specs, access rows and encryption; returns what was
    deleted.

    The row is locked first, so a volume create holding it `for_share` finishes before the
    in-use check reads the volumes table.

    :raises VolumeTypeNotFound, VolumeTypeInUse, VolumeTypeDefaultDeletionError,
        VolumeTypeDefaultMisconfiguredError:
    """
    with db.writer() as session:
        row = lock_row(session, type_id=type_id)
        if row is None:
            raise exception.VolumeTypeNotFound(volume_type_id=type_id)
        record = _records(session, [row])[0]
        _check_deletable(db, session, row, conf_default_name=conf_default_name)
        now = utcnow()
        conditional.update(session, VolumeType,
                           values={'deleted': True, 'deleted_at': now,
                                   'updated_at': VolumeType.updated_at},
                           where=[VolumeType.id == type_id])
        conditional.update(session, VolumeTypeExtraSpecs,
                           values={'deleted': True, 'deleted_at': now},
                           where=[VolumeTypeExtraSpecs.volume_type_id == type_id,
                                  VolumeTypeExtraSpecs.deleted == sa.false()])
        conditional.update(session, VolumeTypeProjects,
                           values={'deleted': VolumeTypeProjects.id, 'deleted_at': now},
                           where=[VolumeTypeProjects.volume_type_id == type_id,
                                  VolumeTypeProjects.deleted == 0])
        conditional.update(session, Encryption, values={'deleted': True, 'deleted_at': now},
                           where=[Encryption.volume_type_id == type_id,
                                  Encryption.deleted == sa.false()])
    LOG.info('Volume type %s deleted', type_id)
    return record


def has_volumes(db, *, type_id, session=None) -> bool:
    """True while a live volume has this type (extra specs are then frozen, as Cinder)."""
    stmt = sa.select(Volume.id).where(Volume.volume_type_id == type_id,
                                      Volume.deleted == sa.false()).limit(1)
    with db.reader(session) as s:
        return s.scalar(stmt) is not None

