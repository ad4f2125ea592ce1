"""group_types rows, their group specs and project access: lookups and changes (cinderlike-api).

Names have no unique constraint in Cinder's schema, so creates and renames run SERIALIZABLE
(db/serializable.py), as volume types do. A group create holds the type row `for_share`, so
a delete of the type waits for it and then sees the new group.
"""

import dataclasses
import datetime
import uuid

import sqlalchemy as sa
from oslo_log import log as logging
from oslo_utils import uuidutils

from cinderlike import exception
from cinderlike.db import conditional, listing, serializable
from cinderlike.db.models import Group, GroupType, GroupTypeProjects, GroupTypeSpecs, utcnow

LOG = logging.getLogger(__name__)

DEFAULT_CGSNAPSHOT_TYPE = 'default_cgsnapshot_type'


@dataclasses.dataclass(frozen=True)
class GroupTypeRecord:
    """One live group type with its group specs, detached from any session."""

    id: str
    name: str
    description: str | None
    is_public: bool
    created_at: datetime.datetime | None
    updated_at: datetime.datetime | None
    group_specs: dict

    def as_payload(self) -> dict:
        """The type as Cinder's group_type.* notifications carry it."""
        return {key: (value.isoformat() if isinstance(value, datetime.datetime) else value)
                for key, value in dataclasses.asdict(self).items()}


def _live():
    return GroupType.deleted == sa.false()


def _shared(project_id):
    return sa.exists().where(GroupTypeProjects.group_type_id == GroupType.id,
                             GroupTypeProjects.project_id == project_id,
                             GroupTypeProjects.deleted == 0)


def _visible(stmt, *, project_id, is_admin):
    """Admins see every type, others the public ones and those shared with their project."""
    if is_admin:
        return stmt
    return stmt.where(sa.or_(GroupType.is_public.is_(True), _shared(project_id)))


def _records(session, rows) -> list[GroupTypeRecord]:
    ids = [row.id for row in rows]
    specs: dict[str, dict] = {type_id: {} for type_id in ids}
    for type_id, key, value in session.execute(
            sa.select(GroupTypeSpecs.group_type_id, GroupTypeSpecs.key, GroupTypeSpecs.value)
            .where(GroupTypeSpecs.group_type_id.in_(ids), GroupTypeSpecs.deleted == sa.false())
            .order_by(GroupTypeSpecs.id)):
        specs[type_id][key] = value
    return [GroupTypeRecord(id=row.id, name=row.name, description=row.description,
                            is_public=row.is_public, created_at=row.created_at,
                            updated_at=row.updated_at, group_specs=specs[row.id])
            for row in rows]


def lock_row(session, *, type_id, read: bool = False) -> GroupType | None:
    """SELECT ... FOR UPDATE (FOR SHARE when *read*) of the live type row, in *session*."""
    return session.scalars(sa.select(GroupType).where(GroupType.id == type_id, _live())
                           .with_for_update(read=read)).first()


def get(db, *, type_id, project_id=None, is_admin=True, session=None,
        for_share=False) -> GroupTypeRecord:
    """The live group type *type_id* as the caller may see it.

    :raises GroupTypeNotFound:
    """
    stmt = _visible(sa.select(GroupType).where(GroupType.id == type_id, _live()),
                    project_id=project_id, is_admin=is_admin)
    if for_share:
        stmt = stmt.with_for_update(read=True)
    with db.reader(session) as s:
        row = s.scalars(stmt).first()
        if row is None:
            raise exception.GroupTypeNotFound(group_type_id=type_id)
        return _records(s, [row])[0]


def get_by_name(db, *, name, project_id=None, is_admin=True, session=None) -> GroupTypeRecord:
    """:raises GroupTypeNotFoundByName:"""
    stmt = _visible(sa.select(GroupType).where(GroupType.name == name, _live()),
                    project_id=project_id, is_admin=is_admin).order_by(GroupType.created_at)
    with db.reader(session) as s:
        row = s.scalars(stmt).first()
        if row is None:
            raise exception.GroupTypeNotFoundByName(group_type_name=name)
        return _records(s, [row])[0]


def get_by_name_or_id(db, *, name_or_id, project_id=None, is_admin=True,
                      session=None) -> GroupTypeRecord:
    """A group type by id, else by name, as Cinder's group create resolves `group_type`.

    :raises GroupTypeNotFound: (GroupTypeNotFoundByName for a non-UUID)
    """
    scope = {'project_id': project_id, 'is_admin': is_admin, 'session': session}
    if not uuidutils.is_uuid_like(name_or_id):
        return get_by_name(db, name=name_or_id, **scope)
    try:
        return get(db, type_id=name_or_id, **scope)
    except exception.GroupTypeNotFound:
        try:
            return get_by_name(db, name=name_or_id, **scope)
        except exception.GroupTypeNotFoundByName:
            raise exception.GroupTypeNotFound(group_type_id=name_or_id) from None


def get_default(db, *, conf_default_name) -> GroupTypeRecord | None:
    """The `default_group_type` option's type; None when unset or naming no live type."""
    if conf_default_name is None:
        return None
    try:
        return get_by_name(db, name=conf_default_name)
    except exception.GroupTypeNotFoundByName:
        LOG.error('Default group type is not found. Please check default_group_type '
                  'config: %s', conf_default_name)
        return None


def get_all(db, *, project_id, is_public=True, marker=None, limit=None, offset=None,
            sort=None) -> list[GroupTypeRecord]:
    """Live group types for a listing (default newest first), one page of them.

    *is_public* True lists public types plus those shared with *project_id*, False the
    private ones, None all. A *marker* that is no live type pages from the start (Cinder's
    lookup finds None, as for volume types).

    :raises InvalidInput: a bad sort key or direction.
    """
    where = [_live()]
    if is_public is not None:
        wanted = GroupType.is_public.is_(bool(is_public))
        if is_public and project_id is not None:
            wanted = sa.or_(wanted, _shared(project_id))
        where.append(wanted)
    pairs = listing.sort_params(GroupType, sort)
    with db.reader() as s:
        if marker is not None:
            marker_row = s.scalars(sa.select(GroupType).where(GroupType.id == marker,
                                                               _live())).first()
            if marker_row is not None:
                where.append(listing.after_marker(pairs, marker_row))
        stmt = listing.order_by(sa.select(GroupType).where(*where), pairs)
        return _records(s, list(s.scalars(stmt.offset(offset).limit(limit))))


def _name_taken(session, name, *, other_than=None) -> bool:
    stmt = sa.select(GroupType.id).where(GroupType.name == name, _live())
    if other_than is not None:
        stmt = stmt.where(GroupType.id != other_than)
    return session.scalar(stmt.limit(1)) is not None


def create(db, *, name, description=None, is_public=True, group_specs=None,
           projects=()) -> GroupTypeRecord:
    """Insert a group type with its specs and project access.

    :raises GroupTypeExists: a live type has this name (of concurrent creates of one name
        exactly one wins).
    """
    type_id = str(uuid.uuid4())

    def work(session):
        if _name_taken(session, name):
            raise exception.GroupTypeExists(id=name)
        session.add(GroupType(id=type_id, name=name, description=description,
                              is_public=is_public))
        session.flush()
        session.add_all(GroupTypeSpecs(group_type_id=type_id, key=key, value=value)
                        for key, value in (group_specs or {}).items())
        session.add_all(GroupTypeProjects(group_type_id=type_id, project_id=project)
                        for project in projects)
        session.flush()
        return get(db, type_id=type_id, session=session)

    record = serializable.run(db, work)
    LOG.info('Group type %s (%s) created', record.id, name)
    return record


def update(db, *, type_id, name=None, description=None, is_public=None) -> GroupTypeRecord:
    """Change what is given (None = keep); an empty name keeps the name, as Cinder.

    :raises GroupTypeNotFound, GroupTypeExists:
    """
    values = {key: value for key, value in
              (('name', name or None), ('description', description), ('is_public', is_public))
              if value is not None}

    def work(session):
        if values.get('name') and _name_taken(session, values['name'], other_than=type_id):
            raise exception.GroupTypeExists(id=values['name'])
        if not conditional.update(session, GroupType, values=dict(values, updated_at=utcnow()),
                                  where=[GroupType.id == type_id, _live()]):
            raise exception.GroupTypeNotFound(group_type_id=type_id)
        return get(db, type_id=type_id, session=session)

    return serializable.run(db, work)


def destroy(db, *, type_id) -> GroupTypeRecord:
    """Soft-delete a type with its specs and access rows; returns what was deleted.

    The row is locked first, so a group create holding it `for_share` commits before the
    in-use check reads the groups table.

    :raises GroupTypeNotFound, GroupTypeInUse:
    """
    with db.writer() as session:
        row = lock_row(session, type_id=type_id)
        if row is None:
            raise exception.GroupTypeNotFound(group_type_id=type_id)
        record = _records(session, [row])[0]
        if session.scalar(sa.select(Group.id).where(Group.group_type_id == type_id,
                                                    Group.deleted == sa.false()).limit(1)):
            raise exception.GroupTypeInUse(group_type_id=type_id)
        now = utcnow()
        conditional.update(session, GroupType, values={'deleted': True, 'deleted_at': now},
                           where=[GroupType.id == type_id])
        conditional.update(session, GroupTypeSpecs, values={'deleted': True, 'deleted_at': now},
                           where=[GroupTypeSpecs.group_type_id == type_id,
                                  GroupTypeSpecs.deleted == sa.false()])
        conditional.update(session, GroupTypeProjects,
                           values={'deleted': GroupTypeProjects.id, 'deleted_at': now},
                           where=[GroupTypeProjects.group_type_id == type_id,
                                  GroupTypeProjects.deleted == 0])
    LOG.info('Group type %s deleted', type_id)
    return record


def update_specs(db, *, type_id, specs: dict) -> None:
    """Create or overwrite the given group specs (Cinder's update_or_create).

    The type row is locked first, so writers of one type's specs queue up and never insert
    one key twice.

    :raises GroupTypeNotFound:
    """
    with db.writer() as session:
        if lock_row(session, type_id=type_id) is None:
            raise exception.GroupTypeNotFound(group_type_id=type_id)
        now = utcnow()
        for key, value in specs.items():
            if not conditional.update(
                    session, GroupTypeSpecs, values={'value': value, 'updated_at': now},
                    where=[GroupTypeSpecs.group_type_id == type_id, GroupTypeSpecs.key == key,
                           GroupTypeSpecs.deleted == sa.false()]):
                session.add(GroupTypeSpecs(group_type_id=type_id, key=key, value=value))


def delete_spec(db, *, type_id, key) -> None:
    """:raises GroupTypeSpecsNotFound:"""
    with db.writer() as session:
        if not conditional.update(
                session, GroupTypeSpecs, values={'deleted': True, 'deleted_at': utcnow()},
                where=[GroupTypeSpecs.group_type_id == type_id, GroupTypeSpecs.key == key,
                       GroupTypeSpecs.deleted == sa.false()]):
            raise exception.GroupTypeSpecsNotFound(group_type_id=type_id, group_specs_key=key)
