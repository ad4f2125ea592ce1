"""workers rows: one per in-flight cleanable operation, naming the service that runs it.

The volume service takes the row when it starts driver work and removes it when the status
is settled (db/settle.py). Taking a row bumps its `epoch`; the holder remembers the epoch in a
`Hold`, and `held()` is the SQL predicate that makes its final status write fail once another
service took the row over. A cleanup (start-up, POST /workers/cleanup, a dead cluster peer)
takes rows over the same way.
"""

import dataclasses
import datetime
import functools

import sqlalchemy as sa
from oslo_log import log as logging

from cinderlike.db import conditional, dialects, serializable
from cinderlike.db import engine as db_engine
from cinderlike.db.models import Worker, utcnow

LOG = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class Hold:
    """What the holder of a workers row knows: which row, under which epoch it took it, and
    whether a requester awaits the operation's answer (*awaited*: see hand_back)."""

    id: int
    resource_type: str
    resource_id: str
    epoch: int
    awaited: bool = False


def _where(resource_type: str, resource_id: str):
    return [Worker.resource_type == resource_type, Worker.resource_id == resource_id]


def begin(db, *, resource_type: str, resource_id: str, status: str, service_id: int | None,
          request: dict | None = None, session=None) -> Hold:
    """Take the resource's workers row for *service_id* (creating it), bumping its epoch.

    *request* is what a cleanup would need to settle the operation. Pass the session of the
    status change so both commit together.
    """
    now = utcnow()
    with db.writer(session) as s:
        row_id, epoch = _upsert(s, {
            'resource_type': resource_type, 'resource_id': resource_id, 'status': status,
            'service_id': service_id, 'epoch': 1, 'request': request, 'created_at': now,
            'updated_at': now, 'race_preventer': 0, 'deleted': False})
    LOG.debug('%s %s: workers row taken by service %s (epoch %s)', resource_type,
              resource_id, service_id, epoch)
    return Hold(row_id, resource_type, resource_id, epoch)


_COLUMNS = ('resource_type', 'resource_id', 'status', 'service_id', 'epoch', 'request',
            'created_at', 'updated_at', 'race_preventer', 'deleted')
_TAKEN = ('status', 'service_id', 'request', 'updated_at')


@functools.cache
def _upsert_statement(dialect_name: str):
    """INSERT a workers row, or take over the one there: status, owner, request and time
    written, the epoch bumped. Built once per dialect, values bound at execution."""
    table = Worker.__table__
    values = {key: sa.bindparam(key, type_=table.c[key].type) for key in _COLUMNS}
    stmt = dialects.insert(dialect_name, table).values(values)
    if dialect_name in ('mysql', 'mariadb'):
        # id = LAST_INSERT_ID(id) makes the driver's lastrowid the row's id either way.
        return stmt.on_duplicate_key_update(
            [('epoch', table.c.epoch + 1), *((key, stmt.inserted[key]) for key in _TAKEN),
             ('id', sa.func.last_insert_id(table.c.id))])
    return stmt.on_conflict_do_update(
        index_elements=['resource_type', 'resource_id'],
        set_={'epoch': table.c.epoch + 1, **{key: stmt.excluded[key] for key in _TAKEN}},
    ).returning(table.c.id, table.c.epoch)


_EPOCH = sa.select(Worker.__table__.c.epoch).where(Worker.__table__.c.id == sa.bindparam('id'))


def _upsert(s, row: dict) -> tuple[int, int]:
    """(id, epoch) of the workers row now stored for *row*, inserted or taken over.

    NOTE(perf): one statement where an UPDATE, a savepoint, an INSERT and a SELECT were; an
    operation's row is gone once it settled, so the INSERT is the usual case.
    """
    name = s.bind.dialect.name
    conn = s.connection()
    result = conn.execute(_upsert_statement(name), row)
    if name not in ('mysql', 'mariadb'):
        return tuple(result.one())
    if result.rowcount == 1:  # inserted (a take-over counts 2)
        return result.lastrowid, 1
    return result.lastrowid, conn.execute(_EPOCH, {'id': result.lastrowid}).scalar_one()


def begin_for(db, machine, *, row_id: str, status: str, service_id: int | None,
              request: dict | None = None, unheld: bool = False, session=None,
              options: tuple = ()):
    """(row, Hold) of a *machine* row still in *status*, its workers row taken in the same
    transaction as that check (*session*'s, when given); (row, None) when the row is in
    another status, or with *unheld* when it has a workers row (a service holds the
    operation). The row is read with the loader *options* (Machine.get).

    :raises: the resource's NotFound.
    """
    with db.writer(session) as s:
        # NOTE(race): the resource's row is locked first, so its status cannot change
        # (an API undoing its request, a sweep settling it) between this check and the take;
        # read and locked by one statement (NOTE(perf)).
        row = machine.get(db, row_id=row_id, session=s, lock=True, options=options)
        if getattr(row, machine.column) != status:
            return row, None
        if unheld and get(db, resource_type=machine.name, resource_id=row_id,
                          session=s) is not None:
            return row, None
        hold = begin(db, resource_type=machine.name, resource_id=row_id, status=status,
                     service_id=service_id, request=request, session=s)
    return row, hold


def current(db, *, resource_type: str, resource_id: str, session=None) -> Hold | None:
    """A Hold on the resource's workers row as it stands now, for a service that settles an
    operation no service has taken yet (the scheduler's refusals); None without a row."""
    row = get(db, resource_type=resource_type, resource_id=resource_id, session=session)
    return None if row is None else Hold(row.id, resource_type, resource_id, row.epoch)


def drop_untaken(s, *, resource_type: str, resource_ids, status: str | None = None) -> int:
    """Remove the resources' workers rows no service holds (the API wrote them, or a service
    handed them back), only those for *status* when given, in the caller's transaction:
    their operations were settled before reaching a service, or answered. How many."""
    where = [Worker.resource_type == resource_type, Worker.resource_id.in_(list(resource_ids)),
             Worker.service_id.is_(None)]
    if status is not None:
        where.append(Worker.status == status)
    return s.execute(sa.delete(Worker).where(*where)
                     .execution_options(synchronize_session=False)).rowcount


def note_untaken(s, *, resource_type: str, resource_id: str, status: str,
                 values: dict) -> bool | None:
    """Add *values* to the request of the resource's workers row while no service has taken
    it and it is still for *status*, in the caller's transaction (its row lock held to the
    end): True; False when it was taken or settled meanwhile; None when it has no row."""
    row = s.scalars(sa.select(Worker).where(*_where(resource_type, resource_id))
                    .with_for_update()).first()
    if row is None:
        return None
    if row.service_id is not None or row.status != status:
        return False
    conditional.update(s, Worker, values={'request': {**(row.request or {}), **values}},
                       where=[Worker.id == row.id])
    return True


_LOCK_HELD = sa.select(Worker.__table__.c.id).where(
    Worker.__table__.c.id == sa.bindparam('id'),
    Worker.__table__.c.epoch == sa.bindparam('epoch')).with_for_update()


def lock_held(s, *, hold: Hold) -> bool:
    """Lock our workers row in the caller's transaction; False when it is no longer ours."""
    return db_engine.execute(
        s, _LOCK_HELD, {'id': hold.id, 'epoch': hold.epoch}).first() is not None


def held(hold: Hold):
    """SQL predicate: the row is still ours (nobody took it over since we did)."""
    return sa.exists().where(Worker.id == hold.id, Worker.epoch == hold.epoch)


_FINISH = sa.delete(Worker.__table__).where(Worker.__table__.c.id == sa.bindparam('id'),
                                           Worker.__table__.c.epoch == sa.bindparam('epoch'))


def finish(db, *, hold: Hold, session=None) -> bool:
    """Remove the row if we still hold it; False when another service took it over."""
    with db.writer(session) as s:
        count = db_engine.execute(s, _FINISH, {'id': hold.id, 'epoch': hold.epoch}).rowcount
    return bool(count)


def hand_back(db, *, hold: Hold, session=None) -> bool:
    """An *awaited* operation succeeded: its row goes back to no service, its time now and
    its status kept, for the requester to remove once it has answered (drop_untaken); one
    that died first leaves it to the sweep (volume/recovery.py sweep_lost). False when
    another service took the row over."""
    with db.writer(session) as s:
        return bool(conditional.update(
            s, Worker, values={'service_id': None, 'updated_at': utcnow()},
            where=[Worker.id == hold.id, Worker.epoch == hold.epoch]))


def get(db, *, resource_type: str, resource_id: str, session=None) -> Worker | None:
    with db.reader(session) as s:
        return s.scalars(sa.select(Worker).where(*_where(resource_type, resource_id))).first()


def get_all(db, *, service_ids: list[int] | None = None, resource_type: str | None = None,
            resource_id: str | None = None, until: datetime.datetime | None = None,
            untaken: bool = False, limit: int | None = None, session=None) -> list[Worker]:
    """Rows matching a cleanup request; *until* keeps rows taken at or before that time
    (Cinder's rule: work started after the request is not the dead service's); *untaken*
    only the rows no service has taken (the API wrote them); at most *limit*, oldest first."""
    stmt = sa.select(Worker)
    if service_ids is not None:
        stmt = stmt.where(Worker.service_id.in_(service_ids))
    if untaken:
        stmt = stmt.where(Worker.service_id.is_(None))
    if resource_type is not None:
        stmt = stmt.where(sa.func.lower(Worker.resource_type) == resource_type.lower())
    if resource_id is not None:
        stmt = stmt.where(Worker.resource_id == resource_id)
    if until is not None:
        stmt = stmt.where(sa.func.coalesce(Worker.updated_at, Worker.created_at) <= until)
    with db.reader(session) as s:
        return list(s.scalars(stmt.order_by(Worker.id).limit(limit)))


def take_over(db, *, worker: Worker, service_id: int) -> Hold | None:
    """Take *worker* (as read) for *service_id* by compare-and-swap on its owner and epoch,
    bumping the epoch; None when another service changed it first (it is theirs then)."""
    owner = (Worker.service_id.is_(None) if worker.service_id is None
             else Worker.service_id == worker.service_id)

    def swap(s):
        return conditional.update(
            s, Worker, values={'service_id': service_id, 'epoch': Worker.epoch + 1,
                               'updated_at': utcnow()},
            where=[Worker.id == worker.id, Worker.epoch == worker.epoch, owner])
    # NOTE(deadlock): on InnoDB the swap can be a deadlock's victim against the upsert of
    # a service taking the same row (begin_for); run again, it finds the epoch moved on and
    # takes nothing, where the error would have ended the whole sweep.
    if not serializable.run(db, swap, serializable=False):
        return None
    LOG.info('%(type)s %(id)s: workers row of service %(old)s taken for cleanup by service '
             '%(new)s (epoch %(epoch)s)', {'type': worker.resource_type,
                                           'id': worker.resource_id, 'old': worker.service_id,
                                           'new': service_id, 'epoch': worker.epoch + 1})
    return Hold(worker.id, worker.resource_type, worker.resource_id, worker.epoch + 1)


def give_back(db, *, hold: Hold, worker: Worker) -> bool:
    """A cleanup that failed returns the row to the service and time it had (Cinder's), so a
    later cleanup retries it; the epoch stays bumped, so the old holder stays fenced."""
    with db.writer() as s:
        return bool(conditional.update(
            s, Worker, values={'service_id': worker.service_id, 'updated_at': worker.updated_at},
            where=[Worker.id == hold.id, Worker.epoch == hold.epoch]))


def fenced(db, *, hold: Hold, operation: str) -> bool:
    """Whether our row was taken over (or settled) by another service; logs the refusal.

    Called when a status write under *hold* changed nothing, to tell fencing apart from
    a row that moved on for another reason (an admin's reset).
    """
    row = get(db, resource_type=hold.resource_type, resource_id=hold.resource_id)
    if row is not None and row.id == hold.id and row.epoch == hold.epoch:
        return False
    LOG.warning('%(type)s %(id)s: %(op)s result refused: its workers row was taken over '
                '(our epoch %(ours)s, now %(now)s, service %(service)s); the new owner '
                'settles it', {'type': hold.resource_type, 'id': hold.resource_id,
                               'op': operation, 'ours': hold.epoch,
                               'now': row.epoch if row is not None else 'settled',
                               'service': row.service_id if row is not None else None})
    return True
