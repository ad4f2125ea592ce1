"""Quota usages and reservations: reserve, commit, rollback, expire, release — each atomic.

Called through quota.py by cinderlike-api (reserve before a row exists), the volume service
(commit/rollback/release after the driver) and the scheduler (expire). The usage rows of a
project are locked with SELECT … FOR UPDATE in resource order, so concurrent requests on any
number of API workers queue on them and can never reserve past a limit.
"""

import datetime
import uuid

import sqlalchemy as sa
from sqlalchemy.dialects import mysql, postgresql, sqlite

from cinderlike import exception
from cinderlike.db.models import QuotaUsage, Reservation, utcnow

# Cinder refuses usage past a signed 32-bit column.
MAX_INT = 0x7FFFFFFF
EXPIRE_BATCH = 500


def _write_lock(s) -> None:
    """On SQLite, take the database's write lock now: it has no row locks to take."""
    # NOTE(sqlite): any UPDATE starts the write transaction, even one that matches no row,
    # so the reads below see what the last writer committed and no one writes meanwhile.
    if s.bind.dialect.name == 'sqlite':
        s.execute(sa.update(QuotaUsage).where(sa.false()).values(reserved=QuotaUsage.reserved))


def _insert_if_absent(s, rows: list[dict]) -> None:
    """INSERT usage rows, leaving alone any (project, resource) another request just created."""
    # NOTE(race_preventer): the unique (project_id, resource, race_preventer) turns the second
    # of two concurrent creations into a no-op that waits for the first to commit.
    name = s.bind.dialect.name
    if name == 'postgresql':
        stmt = postgresql.insert(QuotaUsage).values(rows).on_conflict_do_nothing()
    elif name in ('mysql', 'mariadb'):
        stmt = mysql.insert(QuotaUsage).values(rows)
        stmt = stmt.on_duplicate_key_update(resource=stmt.inserted.resource)
    else:
        stmt = sqlite.insert(QuotaUsage).values(rows).on_conflict_do_nothing()
    s.execute(stmt)


def _lock_usages(s, project_id: str, resources: list[str]) -> dict[str, QuotaUsage]:
    stmt = (sa.select(QuotaUsage).where(
        QuotaUsage.project_id == project_id, QuotaUsage.resource.in_(resources),
        QuotaUsage.deleted.is_(False)).order_by(QuotaUsage.resource).with_for_update())
    return {row.resource: row for row in s.scalars(stmt)}


def _usages_for(s, project_id: str, resources: list[str], count) -> dict[str, QuotaUsage]:
    """The project's usage rows of *resources*, locked; missing ones are counted and created."""
    existing = set(s.scalars(sa.select(QuotaUsage.resource).where(
        QuotaUsage.project_id == project_id, QuotaUsage.resource.in_(resources),
        QuotaUsage.deleted.is_(False))))
    missing = [r for r in resources if r not in existing]
    if missing:
        now = utcnow()
        _insert_if_absent(s, [
            {'project_id': project_id, 'resource': r, 'in_use': count(s, r), 'reserved': 0,
             'race_preventer': True, 'deleted': False, 'created_at': now} for r in missing])
    return _lock_usages(s, project_id, resources)


def _refresh(s, usage: QuotaUsage, count, until_refresh: int, max_age: int) -> None:
    """Recount in_use when it went negative or `until_refresh`/`max_age` say it is stale."""
    stale = usage.in_use < 0
    if not stale and usage.until_refresh is not None:
        usage.until_refresh -= 1
        stale = usage.until_refresh <= 0
    elif not stale and max_age and usage.updated_at is not None:
        stale = (utcnow() - usage.updated_at).total_seconds() >= max_age
    if stale:
        usage.in_use = count(s, usage.resource)
        usage.until_refresh = until_refresh or None


def reserve(db, *, project_id: str, deltas: dict[str, int], limits: dict[str, int],
            expire: datetime.datetime, count, until_refresh: int = 0, max_age: int = 0,
            session=None) -> list[str]:
    """Reserve *deltas* against *limits*; the uuids of the new reservations, in resource order.

    *count(session, resource)* recounts a usage from the resource tables.
    :raises OverQuota: with `overs`, `quotas` and `usages` when a positive delta does not fit;
        nothing is written then.
    """
    resources = sorted(deltas)
    with db.writer(session) as s:
        _write_lock(s)
        usages = _usages_for(s, project_id, resources, count)
        for usage in usages.values():
            _refresh(s, usage, count, until_refresh, max_age)
        overs = [r for r in resources if deltas[r] > 0 and (
            0 <= limits[r] < usages[r].in_use + usages[r].reserved + deltas[r]
            or usages[r].in_use + usages[r].reserved + deltas[r] > MAX_INT)]
        if overs:
            raise exception.OverQuota(overs=overs, quotas=dict(limits), usages={
                r: {'in_use': u.in_use, 'reserved': u.reserved} for r, u in usages.items()})
        uuids = []
        for resource in resources:
            usage, delta = usages[resource], deltas[resource]
            uuids.append(str(uuid.uuid4()))
            s.add(Reservation(uuid=uuids[-1], usage_id=usage.id, project_id=project_id,
                              resource=resource, delta=delta, expire=expire, deleted=False))
            if delta > 0:
                usage.reserved += delta
        return uuids


def _settle(s, reservations: list[Reservation], *, apply: bool) -> int:
    """Take each reservation off `reserved` (and onto `in_use` when *apply*), then delete it."""
    usage_ids = sorted({r.usage_id for r in reservations})
    usages = {u.id: u for u in s.scalars(sa.select(QuotaUsage).where(
        QuotaUsage.id.in_(usage_ids)).order_by(QuotaUsage.id).with_for_update())}
    now = utcnow()
    for reservation in reservations:
        usage = usages[reservation.usage_id]
        if reservation.delta > 0:
            usage.reserved = max(0, usage.reserved - reservation.delta)
        if apply:
            usage.in_use = max(0, usage.in_use + reservation.delta)
        reservation.deleted = True
        reservation.deleted_at = now
    return len(reservations)


def _lock_reservations(s, where, limit: int | None = None) -> list[Reservation]:
    stmt = (sa.select(Reservation).where(Reservation.deleted.is_(False), *where)
            .order_by(Reservation.id).limit(limit).with_for_update())
    return list(s.scalars(stmt))


def commit(db, *, reservations: list[str], session=None) -> int:
    """Move reserved amounts into in_use; a reservation already settled is skipped."""
    with db.writer(session) as s:
        _write_lock(s)
        return _settle(s, _lock_reservations(s, [Reservation.uuid.in_(reservations)]),
                       apply=True)


def rollback(db, *, reservations: list[str], session=None) -> int:
    """Give reserved amounts back; a reservation already settled is skipped."""
    with db.writer(session) as s:
        _write_lock(s)
        return _settle(s, _lock_reservations(s, [Reservation.uuid.in_(reservations)]),
                       apply=False)


def expire(db, *, now: datetime.datetime | None = None) -> int:
    """Roll back reservations whose `expire` has passed, in bounded batches; how many."""
    now = now or utcnow()
    total = 0
    while True:
        with db.writer() as s:
            _write_lock(s)
            batch = _lock_reservations(s, [Reservation.expire < now], EXPIRE_BATCH)
            done = _settle(s, batch, apply=False) if batch else 0
        total += done
        if done < EXPIRE_BATCH:
            return total


def release(db, *, project_id: str, deltas: dict[str, int], session=None) -> None:
    """Apply negative *deltas* to in_use directly (a deletion finished); never below 0."""
    with db.writer(session) as s:
        _write_lock(s)
        for resource, usage in _lock_usages(s, project_id, sorted(deltas)).items():
            usage.in_use = max(0, usage.in_use + deltas[resource])

