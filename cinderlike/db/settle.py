"""The one fenced step that ends an operation: status, quota, capacity claim, workers row.

Whatever an operation's outcome (a create finished or failed, a delete done or refused by the
backend, an extend grown or failed, a cleanup's verdict), its pieces are written in one
transaction and only while the caller still holds the operation's workers row: a service
whose row was taken over writes nothing, and the take-over's owner settles instead.
"""

import contextlib
import dataclasses
import enum

from cinderlike.db import pools as db_pools
from cinderlike.db import reservations as db_reservations
from cinderlike.db import workers as db_workers


class Settled(enum.Enum):
    DONE = 'done'
    FENCED = 'fenced'        # another service took the workers row over: it settles
    MOVED_ON = 'moved on'    # the row left the in-progress status (reset, deleted)


@dataclasses.dataclass(frozen=True)
class Outcome:
    """What settling *action* writes besides the workers row's removal.

    The status goes to the table's on_success (on_error with *error*, or *status*), with
    *values*; *destroy* soft-deletes the row instead. *commit* and *rollback* are quota
    reservations; *release_usage* the negative deltas of a resource that is gone (skipped
    for a row that does not consume quota); *release_gb* capacity given back to the pool
    of the (volume) row. *where* adds predicates the row must still meet.
    """

    action: str
    error: bool = False
    status: str | None = None
    values: dict | None = None
    destroy: bool = False
    commit: tuple[str, ...] = ()
    rollback: tuple[str, ...] = ()
    release_usage: dict[str, int] | None = None
    release_gb: float = 0
    where: tuple = ()


class _Lost(Exception):
    """The status was written but the workers row is no longer ours: undo the writes."""


def _settle_once(db, machine, *, row, hold: db_workers.Hold, outcome, session=None) -> Settled:
    """Write *outcome* for *row* (a *machine* row) in one transaction, fenced on *hold*.

    Pass *session* to settle together with other rows (a backup and its volume): the writes
    then go in a savepoint, so a lost fence undoes only them.
    """
    try:
        with db.writer(session) as s, _undoable(s, nested=session is not None):
            # NOTE(race): the resource's row, then the workers row, in the order a service
            # taking the operation (workers.begin_for) locks them, each by the statement that
            # writes it. The status UPDATE holds the resource row's lock to the commit; the
            # fence is the workers row's DELETE on its epoch, which the database re-checks on
            # the latest version after a wait (a taker committed first: nothing deleted). A
            # lost fence rolls the status back. NOTE(perf): two locking reads fewer than
            # locking both rows before writing, on every settle.
            done = _write_status(db, machine, row, outcome, s)
            if done:
                if not db_workers.finish(db, hold=hold, session=s):
                    raise _Lost
                _side_effects(db, row, outcome, s)
    except _Lost:
        done = False
    if done:
        return Settled.DONE
    if db_workers.fenced(db, hold=hold, operation=outcome.action):
        return Settled.FENCED
    return Settled.MOVED_ON


def _undoable(s, *, nested: bool):
    """A savepoint in the caller's transaction when *nested*; the transaction itself (which
    _Lost rolls back) otherwise."""
    return s.begin_nested() if nested else contextlib.nullcontext()


def _write_status(db, machine, row, outcome: Outcome, s) -> bool:
    if outcome.destroy:
        return machine.destroy(db, row_id=row.id, values=outcome.values, session=s,
                               action=outcome.action, where=outcome.where)
    return machine.finish(db, row_id=row.id, action=outcome.action, error=outcome.error,
                          status=outcome.status, values=outcome.values,
                          where=outcome.where, session=s)


def _side_effects(db, row, outcome: Outcome, s) -> None:
    """The writes to rows other operations share, last in the transaction.

    NOTE(lock_order): the hottest rows go last, each in one order for every settle: the
    pool's row (every volume of the backend), then the project's quota rows (every volume of
    the project), so each stays locked only until the commit that follows.
    """
    if outcome.release_gb:
        db_pools.release(db, pool=db_pools.pool_of(row), size_gb=outcome.release_gb,
                         session=s)
    if outcome.commit:
        db_reservations.commit(db, reservations=list(outcome.commit), session=s)
    if outcome.rollback:
        db_reservations.rollback(db, reservations=list(outcome.rollback), session=s)
    # NOTE(use_quota): backups have no use_quota column; they always count.
    if outcome.release_usage and getattr(row, 'use_quota', True):
        db_reservations.release(db, project_id=row.project_id, deltas=outcome.release_usage,
                                session=s)


def settle(db, machine, *, row, hold: db_workers.Hold, outcome, session=None) -> Settled:
    """_settle_once(), run again while the database is unreachable (Database.retrying) when
    it is a transaction of its own; a caller passing *session* retries its transaction."""
    def write():
        return _settle_once(db, machine, row=row, hold=hold, outcome=outcome, session=session)
    if session is not None:
        return write()
    return db.retrying(write, what=f'Settling {machine.name} {row.id}')
