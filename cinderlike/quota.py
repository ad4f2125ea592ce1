"""Quotas: which resources exist, their limits, and reserve / commit / rollback over the db.

Used by cinderlike-api (reserve before a volume, snapshot or backup row exists; quota-sets and
limits), the volume service (commit/rollback/release once the driver is done) and the scheduler
(expire_reservations). Limits resolve project row → quota class 'default' → option default.
"""

import dataclasses
import datetime

from oslo_log import log as logging

from cinderlike import exception
from cinderlike.db import quotas as db_quotas
from cinderlike.db import reservations as db_reservations
from cinderlike.db.models import utcnow

LOG = logging.getLogger(__name__)

DEFAULT_CLASS = 'default'
# Project-wide resources and the option holding each one's default, in Cinder's order.
DEFAULT_OPTIONS = {
    'volumes': 'quota_volumes',
    'per_volume_gigabytes': 'per_volume_size_limit',
    'snapshots': 'quota_snapshots',
    'gigabytes': 'quota_gigabytes',
    'backups': 'quota_backups',
    'backup_gigabytes': 'quota_backup_gigabytes',
    'groups': 'quota_groups',
}
# Limits checked by value, never reserved.
LIMIT_ONLY = ('per_volume_gigabytes',)


def resources(db, *, session=None) -> list[str]:
    """Every quota resource: the project-wide ones, then volumes/gigabytes/snapshots per type."""
    names = list(DEFAULT_OPTIONS)
    for type_name in db_quotas.volume_types(db, session=session):
        names.extend(f'{base}_{type_name}' for base in db_quotas.TYPE_RESOURCES)
    return names


def _option_default(conf, resource: str) -> int:
    # NOTE(per_type): per-type resources have no option; Cinder defaults them to -1.
    option = DEFAULT_OPTIONS.get(resource)
    return conf[option] if option else -1


def _default_class(conf) -> str | None:
    return DEFAULT_CLASS if conf.use_default_quota_class else None


def _defaults_of(conf, classes: dict[str, int], names) -> dict[str, int]:
    # NOTE(perf): an option is read only for a resource the class leaves out.
    return {name: classes[name] if name in classes else _option_default(conf, name)
            for name in names}


def defaults(conf, db, *, names: list[str] | None = None, session=None) -> dict[str, int]:
    """Default limit of each resource: class 'default' (`use_default_quota_class`), else options."""
    names = names if names is not None else resources(db, session=session)
    class_name = _default_class(conf)
    classes = (db_quotas.get_class_limits(db, class_name=class_name, session=session)
               if class_name else {})
    return _defaults_of(conf, classes, names)


def class_quotas(conf, db, *, class_name: str) -> dict[str, int]:
    """Quota class *class_name*'s limit of each resource, falling back to the defaults."""
    names = resources(db)
    own = db_quotas.get_class_limits(db, class_name=class_name)
    fallback = defaults(conf, db, names=names)
    return {name: own.get(name, fallback[name]) for name in names}


def project_quotas(conf, db, *, project_id: str, usages: bool = False,
                   only_own: bool = False) -> dict[str, dict[str, int]]:
    """{resource: {'limit'[, 'in_use', 'reserved']}} for the project.

    *only_own* keeps just the resources the project has its own limit for (Cinder's
    defaults=False), which is what a quota update checks against usage.
    """
    names = resources(db)
    own, classes = db_quotas.get_limits(db, project_id=project_id,
                                        class_name=_default_class(conf))
    fallback = _defaults_of(conf, classes, names)
    used = db_quotas.get_usages(db, project_id=project_id) if usages else {}
    result = {}
    for name in names:
        if only_own and name not in own:
            continue
        result[name] = {'limit': own.get(name, fallback[name])}
        if usages:
            usage = used.get(name, {})
            result[name].update(in_use=usage.get('in_use', 0),
                                reserved=usage.get('reserved', 0))
    return result


def _lookup(conf, db, project_id: str, wanted, session=None,
            type_ids: dict[str, str] | None = None) -> tuple[dict[str, int], dict[str, str]]:
    """(limits of *wanted*, {type name: id}) read in one transaction; *type_ids*, when the
    caller knows every type *wanted* names, spares reading them all.

    :raises QuotaResourceUnknown: for a name no quota knows.
    """
    with db.reader(session) as s:
        if type_ids is None:
            type_ids = db_quotas.volume_types(db, session=s)
        names = set(DEFAULT_OPTIONS)
        names.update(f'{base}_{type_name}' for type_name in type_ids
                     for base in db_quotas.TYPE_RESOURCES)
        unknown = sorted(set(wanted) - names)
        if unknown:
            raise exception.QuotaResourceUnknown(unknown=unknown)
        own, classes = db_quotas.get_limits(db, project_id=project_id,
                                            class_name=_default_class(conf), session=s)
        fallback = _defaults_of(conf, classes, wanted)
    return {name: own.get(name, fallback[name]) for name in wanted}, type_ids


def _limits(conf, db, project_id: str, wanted, session=None) -> dict[str, int]:
    """Limits of *wanted*; :raises QuotaResourceUnknown: for a name no quota knows."""
    return _lookup(conf, db, project_id, wanted, session=session)[0]


def volume_deltas(*, size: int, volume_type_name: str | None, count: int = 1,
                  snapshot: bool = False, gigabytes: bool = True) -> dict[str, int]:
    """Deltas of *count* volumes (or snapshots) of *size* G, per type too (add_volume_type_opts).

    *gigabytes=False* leaves sizes out (snapshots under `no_snapshot_gb_quota`).
    """
    kind = 'snapshots' if snapshot else 'volumes'
    deltas = {kind: count}
    if volume_type_name:
        deltas[f'{kind}_{volume_type_name}'] = count
    if gigabytes:
        deltas['gigabytes'] = size
        if volume_type_name:
            deltas[f'gigabytes_{volume_type_name}'] = size
    return deltas


# Over-quota on a count resource → the exception Cinder's process_reserve_over_quota raises.
_COUNT_ERRORS = {
    'volumes': exception.VolumeLimitExceeded,
    'snapshots': exception.SnapshotLimitExceeded,
    'backups': exception.BackupLimitExceeded,
    'groups': exception.GroupLimitExceeded,
}


def _specific(error: exception.OverQuota, deltas: dict[str, int]) -> exception.OverQuota:
    """The Cinder exception naming the first resource over its limit, kwargs kept."""
    over = error.kwargs['overs'][0]
    usage = error.kwargs['usages'][over]
    limit = error.kwargs['quotas'][over]
    consumed = usage['in_use'] + usage['reserved']
    base = over.split('_')[0]
    if over == 'backup_gigabytes':
        specific = exception.VolumeBackupSizeExceedsAvailableQuota(
            requested=deltas[over], quota=limit, consumed=consumed)
    elif base == 'gigabytes':
        specific = exception.VolumeSizeExceedsAvailableQuota(
            name=over, requested=deltas[over], quota=limit, consumed=consumed)
    elif base in _COUNT_ERRORS:
        specific = _COUNT_ERRORS[base](allowed=limit, name=over)
    else:
        return error
    specific.kwargs.update(error.kwargs)
    return specific


def _counter(conf, project_id: str, type_ids: dict[str, str]):
    """count(session, resource): a usage recounted from the resource tables."""
    def count(s, resource):
        return db_quotas.count_in_use(s, project_id=project_id, resource=resource,
                                      type_ids=type_ids,
                                      no_snapshot_gb_quota=conf.no_snapshot_gb_quota)
    return count


def _refused(ctx, project_id: str, error: exception.OverQuota, deltas) -> exception.OverQuota:
    LOG.warning('Quota exceeded for project %(project)s on %(overs)s (request %(req)s).',
                {'project': project_id, 'overs': error.kwargs['overs'],
                 'req': ctx.request_id if ctx else None})
    return _specific(error, deltas)


def _reservable(deltas) -> None:
    unreservable = sorted(set(deltas) & set(LIMIT_ONLY))
    if unreservable:
        raise exception.QuotaResourceUnknown(unknown=unreservable)


def reserve(db, ctx, *, conf, project_id: str, deltas: dict[str, int],
            session=None) -> list[str]:
    """Reserve *deltas* for the project until `reservation_expire`; the reservation uuids.

    :raises VolumeLimitExceeded, VolumeSizeExceedsAvailableQuota, SnapshotLimitExceeded,
        BackupLimitExceeded, VolumeBackupSizeExceedsAvailableQuota, GroupLimitExceeded: (413)
        for the first resource over its limit; nothing is reserved then.
    :raises QuotaResourceUnknown: for a resource that is not reservable.
    """
    _reservable(deltas)
    limits, type_ids = _lookup(conf, db, project_id, deltas, session=session)
    expire = utcnow() + datetime.timedelta(seconds=conf.reservation_expire)
    try:
        return db_reservations.reserve(
            db, project_id=project_id, deltas=deltas, limits=limits, expire=expire,
            count=_counter(conf, project_id, type_ids), until_refresh=conf.until_refresh,
            max_age=conf.max_age, session=session)
    except exception.OverQuota as error:
        raise _refused(ctx, project_id, error, deltas) from None


@dataclasses.dataclass(frozen=True)
class VolumePlan:
    """A new volume's deltas and the limits they are checked against, read once."""

    project_id: str
    deltas: dict[str, int]
    limits: dict[str, int]
    type_ids: dict[str, str]
    size_limit: int

    def check_size(self, size: int) -> None:
        """Cinder's check_volume_size.

        :raises VolumeSizeExceedsLimit: (413) when *size* is above the project's limit.
        """
        _check_size(self.size_limit, size)


def plan_volume(db, *, conf, project_id: str, deltas: dict[str, int], session=None,
                volume_type=None) -> VolumePlan:
    """The limits consume() checks *deltas* (of a volume of *volume_type*, when given)
    against, and per_volume_gigabytes, in one lookup (in the caller's *session* when given).

    :raises QuotaResourceUnknown: for a resource that is not reservable.
    """
    _reservable(deltas)
    limits, type_ids = _lookup(
        conf, db, project_id, [*deltas, *LIMIT_ONLY], session=session,
        type_ids=None if volume_type is None else {volume_type.name: volume_type.id})
    return VolumePlan(project_id, dict(deltas), {r: limits[r] for r in deltas}, type_ids,
                      limits['per_volume_gigabytes'])


def consume(db, ctx, *, conf, plan: VolumePlan, then):
    """Reserve and commit *plan*'s deltas in one transaction with *then(session)*, which
    writes what they count; *then*'s result.

    :raises: the errors of reserve() (413 over quota); nothing is written then.
    """
    try:
        return db_reservations.consume(
            db, project_id=plan.project_id, deltas=plan.deltas, limits=plan.limits,
            count=_counter(conf, plan.project_id, plan.type_ids), then=then,
            until_refresh=conf.until_refresh, max_age=conf.max_age)
    except exception.OverQuota as error:
        raise _refused(ctx, plan.project_id, error, plan.deltas) from None


def consume_at_once(conf, plan: VolumePlan, *, session) -> bool:
    """consume()'s common case in the caller's *session*, after it wrote what *plan* counts;
    False when consume() must decide instead (the caller then rolls back what it wrote)."""
    return db_reservations.consume_at_once(
        session, project_id=plan.project_id, deltas=plan.deltas, limits=plan.limits,
        until_refresh=conf.until_refresh, max_age=conf.max_age)


def commit(db, ctx, reservations: list[str], *, session=None) -> None:
    """Make reserved amounts used (the resource now exists or grew)."""
    db_reservations.commit(db, reservations=list(reservations), session=session)


def rollback(db, ctx, reservations: list[str], *, session=None) -> None:
    """Give reserved amounts back (the operation failed or was refused)."""
    db_reservations.rollback(db, reservations=list(reservations), session=session)


def release_usage(db, *, project_id: str, deltas: dict[str, int], session=None) -> None:
    """Take a deleted resource's negative *deltas* off in_use at once."""
    db_reservations.release(db, project_id=project_id, deltas=deltas, session=session)


def expire_reservations(db) -> int:
    """Roll back every reservation past its `expire` (scheduler's periodic); how many."""
    count = db_reservations.expire(db)
    if count:
        LOG.info('Rolled back %d expired quota reservations.', count)
    return count


def _check_size(limit: int, size: int) -> None:
    if 0 <= limit < size:
        raise exception.VolumeSizeExceedsLimit(size=size, limit=limit)


def check_volume_size(db, *, conf, project_id: str, size: int, session=None) -> None:
    """Cinder's limit_check of per_volume_gigabytes.

    :raises VolumeSizeExceedsLimit: (413) when *size* is above the project's limit.
    """
    _check_size(_limits(conf, db, project_id, ['per_volume_gigabytes'],
                        session=session)['per_volume_gigabytes'], size)
