"""Quota usages and reservations: reserve, commit, rollback, expire, release — each atomic.

Called through quota.py by cinderlike-api (reserve before a row exists), the volume service
(commit/rollback/release after the driver) and the scheduler (expire). The usage rows of a
project are locked with SELECT … FOR UPDATE in resource order, so concurrent requests on any
number of API workers queue on them and can never reserve past a limit.
"""

import dataclasses
import datetime
import functools
import uuid

import sqlalchemy as sa

from cinderlike import exception
from cinderlike.db import dialects, serializable
from cinderlike.db import engine as db_engine
from cinderlike.db.models import QuotaUsage, Reservation, utcnow

# Cinder refuses usage past a signed 32-bit column.
MAX_INT = 0x7FFFFFFF
EXPIRE_BATCH = 500
DEADLOCK_RETRIES = 10


def _write_lock(s) -> None:
    """On SQLite, take the database's write lock now: it has no row locks to take."""
    # NOTE(sqlite): any UPDATE starts the write transaction, even one that matches no row,
    # so the reads below see what the last writer committed and no one writes meanwhile.
    if s.bind.dialect.name == 'sqlite':
        s.execute(sa.update(QuotaUsage).where(sa.false()).values(reserved=QuotaUsage.reserved))


def _in_transaction(db, session, work):
    """*work(session)* in the caller's transaction, or in its own, retried after a deadlock.

    NOTE(deadlock): two requests creating a project's first usage rows can deadlock on
    InnoDB's duplicate-key locks; the database aborts one, which simply runs again.
    """
    def locked(s):
        _write_lock(s)
        return work(s)

    if session is not None:
        return locked(session)
    return serializable.run(db, locked, serializable=False, attempts=DEADLOCK_RETRIES)


def retried(db, work):
    """*work(session)* in a transaction of its own, run again from the start after a deadlock.

    For callers composing quota moves with other rows (a transfer accept): on InnoDB their
    reservation and usage locks can cross a concurrent commit's, and the loser just reruns.
    """
    return _in_transaction(db, None, work)


def _insert_if_absent(s, rows: list[dict]) -> None:
    """INSERT usage rows, leaving alone any (project, resource) another request just created."""
    # NOTE(race_preventer): the unique (project_id, resource, race_preventer) turns the second
    # of two concurrent creations into a no-op that waits for the first to commit.
    name = s.bind.dialect.name
    stmt = dialects.insert(name, QuotaUsage).values(rows)
    if name in ('mysql', 'mariadb'):
        stmt = stmt.on_duplicate_key_update(resource=stmt.inserted.resource)
    else:
        stmt = stmt.on_conflict_do_nothing()
    s.execute(stmt)


@dataclasses.dataclass
class _Usage:
    """A locked usage row's counters; changes reach the database through _write_usages."""

    id: int
    resource: str
    in_use: int
    reserved: int
    until_refresh: int | None
    updated_at: datetime.datetime | None


# NOTE(perf): the statements of every quota move, built once and bound at execution (building
# and hashing them again per request cost more than running them); the locked rows are read
# as Core rows on the session's connection, without ORM instances to load and expunge.
_USAGES = QuotaUsage.__table__
_LOCK_USAGES = (sa.select(*(_USAGES.c[field.name] for field in dataclasses.fields(_Usage)))
                .where(_USAGES.c.project_id == sa.bindparam('project_id'),
                       _USAGES.c.resource.in_(sa.bindparam('resources', expanding=True)),
                       _USAGES.c.deleted == sa.false())
                .order_by(_USAGES.c.resource).with_for_update())


def _lock_usages(s, project_id: str, resources: list[str]) -> dict[str, _Usage]:
    """The usage rows of *resources*, locked until the transaction ends."""
    return {row.resource: _Usage(*row) for row in db_engine.execute(
        s, _LOCK_USAGES, {'project_id': project_id, 'resources': list(resources)})}


@functools.cache
def _write_usages_statement(count: int):
    """UPDATE of *count* usage rows by id: in_use, reserved, until_refresh per row."""
    table = QuotaUsage.__table__

    def by_id(column):
        return sa.case(*((table.c.id == sa.bindparam(f'id_{i}'),
                          sa.bindparam(f'{column.key}_{i}', type_=column.type))
                         for i in range(count)), else_=column)
    return sa.update(table).where(
        table.c.id.in_([sa.bindparam(f'id_{i}') for i in range(count)])).values(
        in_use=by_id(table.c.in_use), reserved=by_id(table.c.reserved),
        until_refresh=by_id(table.c.until_refresh), updated_at=sa.bindparam('now'))


def _write_usages(s, usages) -> None:
    """One UPDATE for every locked usage row: in_use, reserved, until_refresh as computed.

    NOTE(round_trips): the rows stay locked until commit; the ORM's flush would send one
    UPDATE per row (psycopg2 and PyMySQL run executemany as a loop of round trips).
    """
    usages = list(usages)
    if not usages:
        return
    params = {'now': utcnow()}
    for i, usage in enumerate(usages):
        params.update({f'id_{i}': usage.id, f'in_use_{i}': usage.in_use,
                       f'reserved_{i}': usage.reserved,
                       f'until_refresh_{i}': usage.until_refresh})
    db_engine.execute(s, _write_usages_statement(len(usages)), params)


def _per_resource(name: str, count: int):
    """CASE giving each of *count* usage rows its own :<name>_<i>, the row of :resource_<i>."""
    return sa.case(*((_USAGES.c.resource == sa.bindparam(f'resource_{i}'),
                      sa.bindparam(f'{name}_{i}', type_=sa.Integer)) for i in range(count)))


def _rows_of(count: int) -> tuple:
    """WHERE clauses of project :of_project's live usage rows :resource_0 … <count - 1>."""
    return (_USAGES.c.project_id == sa.bindparam('of_project'),
            _USAGES.c.resource.in_([sa.bindparam(f'resource_{i}') for i in range(count)]),
            _USAGES.c.deleted == sa.false())


def _per_resource_params(project_id: str, resources: list[str], **per_resource) -> dict:
    """Parameters of _rows_of and _per_resource: {name: {resource: value}} per CASE."""
    params = {'of_project': project_id, 'now': utcnow()}
    for i, resource in enumerate(resources):
        params[f'resource_{i}'] = resource
        for name, values in per_resource.items():
            params[f'{name}_{i}'] = values[resource]
    return params


def _in_resource_order(count: int):
    """WHERE clause that first locks the rows of _rows_of(*count*) in resource order.

    NOTE(lock_order): PostgreSQL's UPDATE locks rows in the order its scan finds them:
    resource order through the index, heap order through a bitmap heap scan, which the
    planner picks as autovacuum's statistics change; and an update that leaves its page
    moves the row. Two creates (or a create and a delete's release) in one project then
    locked its usage rows in opposite orders and deadlocked, each loser waiting out
    `deadlock_timeout` (1 s) before running again: POSTs of 1-26 s in long-lived
    deployments. The locking subquery takes them in resource order, the order of every
    other quota move. InnoDB locks them in the order of the (project_id, resource) index.
    """
    return _USAGES.c.id.in_(sa.select(_USAGES.c.id).where(*_rows_of(count))
                            .order_by(_USAGES.c.resource).with_for_update())


@functools.cache
def _add_in_use_statement(count: int, in_order: bool):
    """UPDATE of *count* usage rows: in_use += :delta_<i> where the delta fits :limit_<i>
    (negative = unlimited) and MAX_INT, for rows needing no recount; *in_order* locks them
    in resource order first."""
    table = _USAGES
    delta, limit = _per_resource('delta', count), _per_resource('limit', count)
    total = table.c.in_use + table.c.reserved + delta
    return sa.update(table).where(
        *_rows_of(count), table.c.in_use >= 0, table.c.until_refresh.is_(None),
        sa.or_(limit < 0, total <= limit), total <= MAX_INT,
        *([_in_resource_order(count)] if in_order else []),
    ).values(in_use=table.c.in_use + delta, updated_at=sa.bindparam('now'))


@functools.cache
def _release_statement(count: int, in_order: bool):
    """UPDATE of *count* usage rows: in_use += :delta_<i>, never below 0; *in_order* locks
    them in resource order first."""
    table = _USAGES
    delta = _per_resource('delta', count)
    return sa.update(table).where(
        *_rows_of(count), *([_in_resource_order(count)] if in_order else []),
    ).values(
        in_use=sa.case((table.c.in_use + delta < 0, 0), else_=table.c.in_use + delta),
        updated_at=sa.bindparam('now'))


def _locks_in_scan_order(s) -> bool:
    """Whether an UPDATE on *s* locks rows in the order it finds them (see _in_resource_order)."""
    return s.bind.dialect.name == 'postgresql'


def _add_in_use(s, project_id: str, resources: list[str], deltas: dict[str, int],
                limits: dict[str, int]) -> bool:
    """Add positive *deltas* to in_use in one UPDATE; False when some row is missing, needs
    a recount or would pass its limit (that UPDATE's changes must then be rolled back)."""
    return db_engine.execute(
        s, _add_in_use_statement(len(resources), _locks_in_scan_order(s)),
        _per_resource_params(project_id, resources, delta=deltas, limit=limits),
    ).rowcount == len(resources)


def _create_missing(s, project_id: str, resources: list[str], count) -> None:
    """Count and create the usage rows of *resources* the project does not have yet."""
    existing = set(s.scalars(sa.select(QuotaUsage.resource).where(
        QuotaUsage.project_id == project_id, QuotaUsage.resource.in_(resources),
        QuotaUsage.deleted == sa.false())))
    missing = [r for r in resources if r not in existing]
    if missing:
        now = utcnow()
        _insert_if_absent(s, [
            {'project_id': project_id, 'resource': r, 'in_use': count(s, r), 'reserved': 0,
             'race_preventer': True, 'deleted': False, 'created_at': now} for r in missing])


def _refresh(s, usage: _Usage, count, until_refresh: int, max_age: int) -> None:
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


def _locked_within(s, *, project_id: str, resources: list[str], deltas: dict[str, int],
                   limits: dict[str, int], count, until_refresh: int, max_age: int) -> dict:
    """The usage rows of *resources*, locked and refreshed, once *deltas* fit *limits*.

    :raises _FirstUse: when some rows do not exist yet.
    :raises OverQuota: when a positive delta does not fit.
    """
    usages = _lock_usages(s, project_id, resources)
    if len(usages) < len(resources):
        raise _FirstUse()
    for usage in usages.values():
        _refresh(s, usage, count, until_refresh, max_age)
    overs = [r for r in resources if deltas[r] > 0 and (
        0 <= limits[r] < usages[r].in_use + usages[r].reserved + deltas[r]
        or usages[r].in_use + usages[r].reserved + deltas[r] > MAX_INT)]
    if overs:
        raise exception.OverQuota(overs=overs, quotas=dict(limits), usages={
            r: {'in_use': u.in_use, 'reserved': u.reserved} for r, u in usages.items()})
    return usages


def _first_use_apart(db, project_id: str, resources: list[str], count, work):
    """*work(session)* in a transaction of its own; when the project lacks usage rows,
    they are created first in a short transaction of their own and *work* runs again.

    NOTE(first_use): as Cinder, so the locking transaction only ever waits on rows that
    exist; usually they do, and nothing but the lock is read.
    """
    try:
        return _in_transaction(db, None, work)
    except _FirstUse:
        _in_transaction(db, None, lambda s: _create_missing(s, project_id, resources, count))
        return _in_transaction(db, None, work)


def reserve(db, *, project_id: str, deltas: dict[str, int], limits: dict[str, int],
            expire: datetime.datetime, count, until_refresh: int = 0, max_age: int = 0,
            session=None) -> list[str]:
    """Reserve *deltas* against *limits*; the uuids of the new reservations, in resource order.

    *count(session, resource)* recounts a usage from the resource tables.
    :raises OverQuota: with `overs`, `quotas` and `usages` when a positive delta does not fit;
        nothing is written then.
    """
    resources = sorted(deltas)

    def work(s, *, first_use):
        if first_use:
            _create_missing(s, project_id, resources, count)
        usages = _locked_within(s, project_id=project_id, resources=resources, deltas=deltas,
                                limits=limits, count=count, until_refresh=until_refresh,
                                max_age=max_age)
        rows = []
        for resource in resources:
            usage, delta = usages[resource], deltas[resource]
            rows.append({'uuid': str(uuid.uuid4()), 'usage_id': usage.id,
                         'project_id': project_id, 'resource': resource, 'delta': delta,
                         'expire': expire, 'deleted': False, 'created_at': utcnow()})
            if delta > 0:
                usage.reserved += delta
        _write_usages(s, usages.values())
        s.execute(sa.insert(Reservation), rows)
        return [row['uuid'] for row in rows]

    if session is not None:
        return _in_transaction(db, session, lambda s: work(s, first_use=True))
    return _first_use_apart(db, project_id, resources, count,
                            lambda s: work(s, first_use=False))


def consume(db, *, project_id: str, deltas: dict[str, int], limits: dict[str, int], count,
            then, until_refresh: int = 0, max_age: int = 0):
    """Reserve and commit *deltas* at once, in one transaction with *then(session)* (the
    write of what they count); *then*'s result.

    The outcome of reserve() then commit() with the resource written between them, without
    the reservation rows: one transaction instead of two, a third of the statements.
    *then* runs again when the transaction is retried (a deadlock, a first use).
    :raises OverQuota: as reserve(); nothing is written then.
    """
    resources = sorted(deltas)

    def uncounted(s, resource):
        # What *then* wrote in this transaction counts exactly its delta.
        return count(s, resource) - deltas[resource]

    def work(s, *, at_once: bool):
        # NOTE(lock_order): *then* writes first and the usage rows are locked last, so the
        # project's concurrent creates queue on them only for the last UPDATE and the
        # commit, not for the rows *then* writes; and a create takes its type's lock before
        # the quota rows, as a type's rename and encryption change do.
        result = then(s)
        if at_once:
            if not _add_in_use(s, project_id, resources, deltas, limits):
                raise _NotAtOnce()
            return result
        usages = _locked_within(s, project_id=project_id, resources=resources, deltas=deltas,
                                limits=limits, count=uncounted, until_refresh=until_refresh,
                                max_age=max_age)
        for resource, usage in usages.items():
            usage.in_use = max(0, usage.in_use + deltas[resource])
        _write_usages(s, usages.values())
        return result

    # NOTE(at_once): usually every row exists, needs no recount and has room: one UPDATE
    # checks and adds at once (its WHERE re-checked on the latest row after a wait), and
    # the rows stay locked only for that statement and the commit. Otherwise the
    # transaction is rolled back and run again the long way: lock, recount, check, write.
    if _at_once_applies(deltas, until_refresh=until_refresh, max_age=max_age):
        try:
            return _in_transaction(db, None, lambda s: work(s, at_once=True))
        except _NotAtOnce:
            pass
    return _first_use_apart(db, project_id, resources, count,
                            lambda s: work(s, at_once=False))


def _at_once_applies(deltas: dict[str, int], *, until_refresh: int, max_age: int) -> bool:
    """Whether one UPDATE may consume *deltas* (nothing to give back, no recount asked for)."""
    return bool(deltas) and not until_refresh and not max_age and all(
        d > 0 for d in deltas.values())


def consume_at_once(s, *, project_id: str, deltas: dict[str, int], limits: dict[str, int],
                    until_refresh: int = 0, max_age: int = 0) -> bool:
    """consume()'s common case in the caller's transaction *s*, after the caller wrote what
    *deltas* count: one UPDATE adds them to in_use where every row exists, needs no recount
    and has room. False when it did not apply or did not take every row: the caller rolls
    its transaction back and consume() decides, the long way.
    """
    return (_at_once_applies(deltas, until_refresh=until_refresh, max_age=max_age)
            and _add_in_use(s, project_id, sorted(deltas), deltas, limits))


class _FirstUse(Exception):
    """Some usage rows of the reservation do not exist yet."""


class _NotAtOnce(Exception):
    """consume()'s single UPDATE did not take every row: the long way decides."""


def _settle(s, reservations: list[Reservation], *, apply: bool) -> int:
    """Take each reservation off `reserved` (and onto `in_use` when *apply*), then delete it."""
    # NOTE(lock_order): rows are locked through (project_id, resource), the order reserve()
    # takes them in; by primary key InnoDB would lock them in another order and deadlock.
    wanted: dict[str, set[str]] = {}
    for reservation in reservations:
        wanted.setdefault(reservation.project_id, set()).add(reservation.resource)
    usages = {}
    for project_id in sorted(wanted):
        for usage in _lock_usages(s, project_id, sorted(wanted[project_id])).values():
            usages[usage.id] = usage
    for reservation in reservations:
        usage = usages[reservation.usage_id]
        if reservation.delta > 0:
            usage.reserved = max(0, usage.reserved - reservation.delta)
        if apply:
            usage.in_use = max(0, usage.in_use + reservation.delta)
    _write_usages(s, usages.values())
    if reservations:
        now = utcnow()
        s.execute(sa.update(Reservation).where(
            Reservation.id.in_([r.id for r in reservations])).values(
            deleted=True, deleted_at=now, updated_at=now)
            .execution_options(synchronize_session=False))
    return len(reservations)


def _lock_reservations(s, where, limit: int | None = None) -> list[Reservation]:
    stmt = (sa.select(Reservation).where(Reservation.deleted == sa.false(), *where)
            .order_by(Reservation.id).limit(limit).with_for_update())
    return list(s.scalars(stmt))


def commit(db, *, reservations: list[str], session=None) -> int:
    """Move reserved amounts into in_use; a reservation already settled is skipped."""
    return _in_transaction(db, session, lambda s: _settle(
        s, _lock_reservations(s, [Reservation.uuid.in_(reservations)]), apply=True))


def rollback(db, *, reservations: list[str], session=None) -> int:
    """Give reserved amounts back; a reservation already settled is skipped."""
    return _in_transaction(db, session, lambda s: _settle(
        s, _lock_reservations(s, [Reservation.uuid.in_(reservations)]), apply=False))


def expire(db, *, now: datetime.datetime | None = None) -> int:
    """Roll back reservations whose `expire` has passed, in bounded batches; how many."""
    now = now or utcnow()
    total = 0
    while True:
        done = _in_transaction(db, None, lambda s: _settle(
            s, _lock_reservations(s, [Reservation.expire < now], EXPIRE_BATCH), apply=False))
        total += done
        if done < EXPIRE_BATCH:
            return total


def release(db, *, project_id: str, deltas: dict[str, int], session=None) -> None:
    """Apply negative *deltas* to in_use directly (a deletion finished); never below 0.

    NOTE(at_once): one UPDATE, without a locking read first: nothing is checked, so the rows
    are locked only from that statement to the commit.
    """
    if not deltas:
        return
    resources = sorted(deltas)
    params = _per_resource_params(project_id, resources, delta=deltas)

    def work(s):
        db_engine.execute(
            s, _release_statement(len(resources), _locks_in_scan_order(s)), params)
    _in_transaction(db, session, work)

