"""Quota limits per project and per class, volume-type names and usage recounts.

Read and written for quota.py by cinderlike-api (quota-sets, limits) and the services; the
reservation bookkeeping that must be atomic lives in db/reservations.py.
"""

import sqlalchemy as sa

from cinderlike.db import engine as db_engine
from cinderlike.db.conditional import update as cas_update
from cinderlike.db.models import (
    Backup,
    Group,
    Quota,
    QuotaClass,
    QuotaUsage,
    Snapshot,
    Volume,
    VolumeType,
    utcnow,
)

# Resources counted per volume type, named '<resource>_<type name>'.
TYPE_RESOURCES = ('volumes', 'gigabytes', 'snapshots')


def _limits_of(model, owner, param: str, own: bool):
    return sa.select(sa.literal(own).label('own'), model.id, model.resource,
                     model.hard_limit).where(owner == sa.bindparam(param),
                                             model.deleted == sa.false())


# NOTE(perf): every POST /volumes reads the project's limits and the default class's; one
# statement, built once and read on the session's connection (building statements per call
# cost more than running them, and each round trip ~100 Python calls).
_LIMITS = sa.union_all(_limits_of(Quota, Quota.project_id, 'project_id', True),
                       _limits_of(QuotaClass, QuotaClass.class_name, 'class_name', False)
                       ).order_by('own', 'id')


def get_limits(db, *, project_id: str | None, class_name: str | None,
               session=None) -> tuple[dict[str, int], dict[str, int]]:
    """(the project's own limits, quota class *class_name*'s), by resource, in one read;
    hard_limit NULL reads as -1 (unlimited), and a None owner has none."""
    with db.reader(session) as s:
        rows = db_engine.execute(s, _LIMITS, {'project_id': project_id,
                                              'class_name': class_name})
        limits: tuple[dict[str, int], dict[str, int]] = ({}, {})
        for own, _id, resource, limit in rows:
            limits[0 if own else 1][resource] = -1 if limit is None else limit
        return limits


def get_project_limits(db, *, project_id: str, session=None) -> dict[str, int]:
    """The project's own limits, by resource (hard_limit NULL reads as -1, unlimited)."""
    return get_limits(db, project_id=project_id, class_name=None, session=session)[0]


def get_class_limits(db, *, class_name: str, session=None) -> dict[str, int]:
    """Quota class *class_name*'s limits, by resource."""
    return get_limits(db, project_id=None, class_name=class_name, session=session)[1]


def _upsert(s, model, owner, owner_value: str, limits: dict[str, int]) -> None:
    now = utcnow()
    for resource, limit in limits.items():
        where = [owner == owner_value, model.resource == resource, model.deleted == sa.false()]
        if not cas_update(s, model, values={'hard_limit': limit, 'updated_at': now},
                          where=where):
            s.add(model(**{owner.key: owner_value}, resource=resource, hard_limit=limit,
                        created_at=now, deleted=False))


def set_project_limits(db, *, project_id: str, limits: dict[str, int], session=None) -> None:
    """Set the project's limit of each resource in *limits*, creating rows that are missing."""
    with db.writer(session) as s:
        _upsert(s, Quota, Quota.project_id, project_id, limits)


def set_class_limits(db, *, class_name: str, limits: dict[str, int], session=None) -> None:
    """Set quota class *class_name*'s limit of each resource in *limits*."""
    with db.writer(session) as s:
        _upsert(s, QuotaClass, QuotaClass.class_name, class_name, limits)


def destroy_project_limits(db, *, project_id: str, session=None) -> int:
    """Drop the project's own limits (usages stay, as in Cinder); returns how many went."""
    now = utcnow()
    with db.writer(session) as s:
        return cas_update(s, Quota, values={'deleted': True, 'deleted_at': now},
                          where=[Quota.project_id == project_id, Quota.deleted == sa.false()])


def get_usages(db, *, project_id: str, session=None) -> dict[str, dict[str, int]]:
    """{'resource': {'in_use', 'reserved'}} of every usage row of the project."""
    with db.reader(session) as s:
        rows = s.execute(sa.select(QuotaUsage.resource, QuotaUsage.in_use, QuotaUsage.reserved)
                         .where(QuotaUsage.project_id == project_id,
                                QuotaUsage.deleted == sa.false()))
        return {resource: {'in_use': in_use, 'reserved': reserved}
                for resource, in_use, reserved in rows}


def volume_types(db, *, session=None) -> dict[str, str]:
    """{name: id} of every live volume type: each one adds per-type quota resources."""
    with db.reader(session) as s:
        rows = s.execute(sa.select(VolumeType.name, VolumeType.id).where(
            VolumeType.deleted == sa.false()).order_by(VolumeType.name))
        return {name: type_id for name, type_id in rows if name}


def _split(resource: str) -> tuple[str, str | None]:
    """('volumes', 'lvm') for 'volumes_lvm'; (resource, None) for a project-wide one."""
    for base in TYPE_RESOURCES:
        if resource.startswith(base + '_'):
            return base, resource[len(base) + 1:]
    return resource, None


def _live(model, project_id: str, type_id: str | None, quota_flag: bool = True) -> list:
    where = [model.project_id == project_id, model.deleted == sa.false()]
    if quota_flag:
        where.append(model.use_quota.is_(True))
    if type_id is not None:
        where.append(model.volume_type_id == type_id)
    return where


def _scalar(s, column, where) -> int:
    return int(s.execute(sa.select(sa.func.coalesce(column, 0)).where(*where)).scalar_one())


def count_in_use(s, *, project_id: str, resource: str, type_ids: dict[str, str],
                 no_snapshot_gb_quota: bool = False) -> int:
    """What *resource* uses now, counted from the resource tables (Cinder's _sync_* functions).

    Runs inside the caller's transaction *s*; a per-type resource of an unknown type counts 0.
    """
    base, type_name = _split(resource)
    type_id = type_ids.get(type_name) if type_name else None
    if type_name and type_id is None:
        return 0
    if base == 'volumes':
        return _scalar(s, sa.func.count(Volume.id), _live(Volume, project_id, type_id))
    if base == 'snapshots':
        return _scalar(s, sa.func.count(Snapshot.id), _live(Snapshot, project_id, type_id))
    if base == 'gigabytes':
        total = _scalar(s, sa.func.sum(Volume.size), _live(Volume, project_id, type_id))
        if not no_snapshot_gb_quota:
            total += _scalar(s, sa.func.sum(Snapshot.volume_size),
                             _live(Snapshot, project_id, type_id))
        return total
    if base == 'backups':
        return _scalar(s, sa.func.count(Backup.id), _live(Backup, project_id, None, False))
    if base == 'backup_gigabytes':
        return _scalar(s, sa.func.sum(Backup.size), _live(Backup, project_id, None, False))
    if base == 'groups':
        return _scalar(s, sa.func.count(Group.id), _live(Group, project_id, None, False))
    return 0
