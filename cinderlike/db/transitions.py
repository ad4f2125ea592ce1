"""Compare-and-swap status transitions for any resource with a state table.

A `Machine` binds a state table (states/<res>.py) to its model, its status column and the
SQL predicates of its guards. `begin`, `finish`, `undo_begin` and `destroy` are each one
conditional UPDATE: the allowed statuses and the guards sit in the WHERE clause, so a lost
race changes nothing, and the transition is logged once, here.
"""

import dataclasses
import functools
from collections.abc import Callable

import sqlalchemy as sa
from oslo_log import log as logging
from sqlalchemy import orm

from cinderlike.db import conditional
from cinderlike.db import engine as db_engine
from cinderlike.db import replication as db_replication
from cinderlike.db.models import utcnow
from cinderlike.states.machine import ANY, DELETED, PREVIOUS, Transition

LOG = logging.getLogger(__name__)


@functools.cache
def _live_clauses(model, of_project: bool) -> tuple:
    """WHERE clauses of the live row :row_id (of :of_project_id), built once per model.

    NOTE(bindparam): an UPDATE reserves its table's column names for SET parameters.
    """
    where = (model.id == sa.bindparam('row_id'), model.deleted == sa.false())
    if of_project:
        where += (model.project_id == sa.bindparam('of_project_id'),)
    return where


@functools.cache
def _get_statement(model, of_project: bool, lock: bool = False, fresh: bool = False,
                   options: tuple = ()):
    """SELECT of the live row :row_id (of :of_project_id), FOR UPDATE with *lock*, over what the
    session already holds with *fresh*, with the loader *options*; built once per model.

    NOTE(perf): every operation on a row starts with it; building and hashing the statement
    again each time cost more than running it.
    """
    stmt = sa.select(model).where(*_live_clauses(model, of_project)).options(*options)
    if fresh:
        stmt = stmt.execution_options(populate_existing=True)
    return stmt.with_for_update() if lock else stmt


@functools.cache
def lock_statement(model):
    """SELECT id … FOR UPDATE of row :row_id, live or not (NOTE(perf), as _get_statement)."""
    return sa.select(model.id).where(model.id == sa.bindparam('row_id')).with_for_update()


@functools.cache
def _children_statement(model, key: str):
    """Soft-delete of the live *model* rows whose *key* is :row_id (a row's metadata), built
    once per child table (NOTE(perf), as _get_statement)."""
    table = model.__table__
    return sa.update(table).where(table.c[key] == sa.bindparam('row_id'),
                                  table.c.deleted == sa.false()).values(_soft_delete_values())


def _soft_delete_values() -> dict:
    return {'deleted': True, 'deleted_at': sa.bindparam('at'), 'updated_at': sa.bindparam('at')}


def _with_children(update: sa.Update, model, children) -> sa.Select:
    """PostgreSQL: *update* (a row's destroy) and the soft-delete of its *children* as one
    statement, data-modifying CTEs, selecting how many rows *update* destroyed.

    NOTE(perf): a volume's destroy and its two metadata tables were three statements, so
    three round trips in a delete's settle. The children are soft-deleted only with a row
    *update* destroyed (its RETURNING), as when they ran after it; like them, they see the
    metadata committed before the statement (no metadata write locks the owner's row).
    """
    destroyed = update.returning(model.id).cte('destroyed')
    stmt = sa.select(sa.func.count()).select_from(destroyed)
    for index, (child, key) in enumerate(children):
        table = child.__table__
        stmt = stmt.add_cte(sa.update(table).where(
            table.c[key].in_(sa.select(destroyed.c.id)), table.c.deleted == sa.false())
            .values(_soft_delete_values()).cte(f'children_{index}'))
    return stmt


@dataclasses.dataclass(frozen=True)
class Machine:
    """One resource's state table bound to its rows.

    *refusal(action, row)* builds the resource's 400 (Cinder's wording) for a refused
    transition; *not_found(id)* its 404. *children* are (model, foreign key column) pairs
    soft-deleted with the row (metadata). *column* is the status column the table drives
    (`status`, or e.g. `attach_status`).
    """

    name: str
    model: type
    table: dict[str, Transition]
    guards: dict[str, Callable[[], sa.ColumnElement]]
    refusal: Callable[[str, object], Exception]
    not_found: Callable[[str], Exception]
    column: str = 'status'
    children: tuple[tuple[type, str], ...] = ()
    _updates: dict = dataclasses.field(default_factory=dict, init=False, repr=False,
                                       compare=False)

    def live(self, row_id: str, project_id: str | None = None) -> list:
        """WHERE clauses of the live row *row_id* (of *project_id* when given)."""
        where = [self.model.id == row_id, self.model.deleted == sa.false()]
        if project_id is not None:
            where.append(self.model.project_id == project_id)
        return where

    def get(self, db, *, row_id: str, project_id: str | None = None, session=None,
            lock: bool = False, options: tuple = ()):
        """The live row, locked FOR UPDATE in *session*'s transaction with *lock*, read with
        the loader *options* (a module constant: the statement is kept per options).

        :raises: the resource's NotFound.
        """
        params = {'row_id': row_id}
        if project_id is not None:
            params['of_project_id'] = project_id
        with db.reader(session) as s:
            row = s.scalars(_get_statement(self.model, project_id is not None, lock,
                                           options=options), params).first()
        if row is None:
            raise self.not_found(row_id)
        return row

    def _status(self):
        return getattr(self.model, self.column)

    def _update(self, key: tuple, build, values: dict, where=()):
        """(UPDATE, its parameters): *build(values, where)*, or with no *where* and plain
        *values*, the statement *build* made once per *key* and value keys, the values bound
        as :new_<key>.

        NOTE(perf): a transition spent more building its statement (clauses, guards'
        subqueries, the cache key) than running it.
        """
        if where or any(conditional.is_sql(v) for v in values.values()):
            return build(values, where), {}
        key = (*key, tuple(values))
        update = self._updates.get(key)
        if update is None:
            update = self._updates[key] = build(
                {k: sa.bindparam(f'new_{k}') for k in values}, ())
        return update, {f'new_{k}': v for k, v in values.items()}

    def _begin_update(self, action: str, of_project: bool, values: dict, where):
        """The CAS UPDATE of *action*: the live row in an allowed status, its guards and
        *where* holding; *values* and the in-progress status set."""
        transition = self.table[action]
        clauses = [*_live_clauses(self.model, of_project), *where]
        if transition.allowed_from is not ANY:
            clauses.append(self._status().in_(sorted(transition.allowed_from)))
        clauses.extend(self.guards[name]() for name in transition.guards)
        return conditional.statement(
            self.model, values=self._begun(action, values, self._status()), where=clauses)

    def _begun(self, action: str, values: dict, previous) -> dict:
        """What *action*'s begin writes: *values*, the in-progress status and, when the
        transition saves it, *previous* as the previous status (the status column in SQL, or
        the value a locked row holds)."""
        transition = self.table[action]
        new = dict(values)
        if transition.in_progress:
            new[self.column] = transition.in_progress
        if transition.saves_previous:
            new['previous_status'] = previous
        return new

    def begin(self, db, *, row_id: str, action: str, project_id: str | None = None,
              values: dict | None = None, where=(), session=None,
              unfrozen: tuple[str | None, str | None] | None = None, locked=None):
        """Move the row into *action*'s in-progress status in one CAS UPDATE.

        *values* are written in the same UPDATE, *where* adds the caller's predicates.
        *unfrozen* is the (host, cluster_name) of the row's backend, which the UPDATE also
        requires not to be frozen (Cinder's is_backend_frozen; NOTE(perf): a clause, not a
        SELECT before it). *locked*: the row as the caller's *session* read it FOR UPDATE
        (`get(lock=True)`).
        Returns the row as now stored.
        :raises: NotFound when there is no such live row; InvalidInput when the backend is
            frozen; the refusal when its state, or a guard, does not allow *action*.
        """
        of_project = project_id is not None
        values = dict(values or {})
        # NOTE(locked): the row cannot change under our lock, so with plain values it is the
        # row read plus what the UPDATE writes, and is not read again; its updated_at is
        # then one of the values (the column's onupdate would be computed unseen).
        known = locked is not None and not any(conditional.is_sql(v) for v in values.values())
        if known:
            values.setdefault('updated_at', utcnow())
        clustered, frozen, bound = None, (), {'row_id': row_id}
        if unfrozen is not None:
            clustered, clause, frozen_params = db_replication.not_frozen(unfrozen)
            frozen = (clause,)
            bound.update(frozen_params)
        if of_project:
            bound['of_project_id'] = project_id
        update, params = self._update(
            ('begin', action, of_project, clustered),
            lambda new, more: self._begin_update(action, of_project, new, (*more, *frozen)),
            values, where)
        params.update(bound)
        with db.writer(session) as s:
            if self.table[action].guards and locked is None:
                # NOTE(race): guards read other rows (a volume's snapshots); lock ours first
                # so the UPDATE's subqueries see what a writer holding the lock committed
                # (PostgreSQL re-checks a waited-for row without re-running subqueries).
                # What the session holds unsent goes first, as the ORM's autoflush would.
                db_engine.execute(s, lock_statement(self.model), params)
            count = conditional.run(s, update, params)
            if known:
                row = locked
                if count:
                    written = self._begun(action, values, getattr(row, self.column))
                    for key, value in written.items():
                        orm.attributes.set_committed_value(row, key, value)
            else:
                # NOTE(populate_existing): one SELECT reads the row as now stored, also over
                # an instance the session loaded before the UPDATE.
                row = s.scalars(_get_statement(self.model, of_project, fresh=True),
                                params).first()
            if row is None:
                raise self.not_found(row_id)
            if not count:
                if unfrozen is not None:
                    db_replication.assert_not_frozen(db, host=unfrozen[0],
                                                     cluster_name=unfrozen[1], session=s)
                raise self.refusal(action, row)
        LOG.info('%(res)s %(id)s: %(action)s began, %(col)s %(status)s',
                 {'res': self.name, 'id': row_id, 'action': action, 'col': self.column,
                  'status': getattr(row, self.column)})
        return row

    def undo_begin(self, db, *, row_id: str, action: str, session=None) -> bool:
        """Return a row still in *action*'s in-progress status to where it came from.

        Used when the request fails after `begin` (quota refused, cast failed).
        """
        transition = self.table[action]
        back = (self.model.previous_status if transition.saves_previous
                else transition.on_error)
        with db.writer(session) as s:
            count = conditional.update(
                s, self.model, values={self.column: back},
                where=[*self.live(row_id), self._status() == transition.in_progress])
        if count:
            LOG.info('%(res)s %(id)s: %(action)s undone',
                     {'res': self.name, 'id': row_id, 'action': action})
        return bool(count)

    def finish(self, db, *, row_id: str, action: str, error: bool = False,
               status: str | None = None, values: dict | None = None, where=(),
               session=None) -> bool:
        """Settle *action*: in-progress status → on_success (on_error with *error*).

        One CAS UPDATE on the in-progress status plus *where* (a workers row still held,
        db/workers.py `held`), with *values* in the same UPDATE. *status* overrides the table
        for an outcome it does not name (a busy delete returns to available, as Cinder's).
        False when the row moved on meanwhile (reset, deleted, taken over): nothing written.
        """
        transition = self.table[action]
        target = status or (transition.on_error if error else transition.on_success)

        def build(new, more):
            new = dict(new)
            if target == PREVIOUS:
                new[self.column] = self.model.previous_status
            elif target is not None:
                new[self.column] = target
            return conditional.statement(self.model, values=new, where=[
                *_live_clauses(self.model, False), self._status() == transition.in_progress,
                *more])
        update, params = self._update(('finish', action, target), build, values or {}, where)
        params['row_id'] = row_id
        with db.writer(session) as s:
            count = conditional.run(s, update, params)
        if count:
            LOG.info('%(res)s %(id)s: %(action)s %(outcome)s', {
                'res': self.name, 'id': row_id, 'action': action,
                'outcome': 'failed' if error else 'finished'})
        return bool(count)

    def destroy(self, db, *, row_id: str, where=(), values: dict | None = None,
                action: str | None = None, session=None) -> bool:
        """Soft-delete the row and its children when *where* still holds (and the row is in
        *action*'s in-progress status, when given); False otherwise."""
        now = utcnow()
        in_progress = self.table[action].in_progress if action else None
        at_once = bool(self.children) and db.dialect == 'postgresql'

        def build(new, more):
            clauses = [*_live_clauses(self.model, False), *more]
            if in_progress:
                clauses.append(self._status() == in_progress)
            update = conditional.statement(self.model, where=clauses, values={
                'deleted': True, 'updated_at': self.model.updated_at, self.column: DELETED,
                **new})
            return _with_children(update, self.model, self.children) if at_once else update
        stmt, params = self._update(('destroy', in_progress, at_once), build,
                                    {'deleted_at': now, **(values or {})}, where)
        params.update(row_id=row_id, at=now)
        with db.writer(session) as s:
            if at_once:
                if not db_engine.execute(s, stmt, params).scalar():
                    return False
            else:
                if not conditional.run(s, stmt, params):
                    return False
                for model, key in self.children:
                    s.connection().execute(_children_statement(model, key), params)
        LOG.info('%s %s destroyed', self.name, row_id)
        return True

    def reset(self, db, *, row_id: str, values: dict, session=None) -> None:
        """Admin reset-state: write the given status columns whatever they were.

        :raises: NotFound.
        """
        with db.writer(session) as s:
            if not conditional.update(s, self.model, values=values, where=self.live(row_id)):
                raise self.not_found(row_id)
        LOG.info('%(res)s %(id)s: status reset to %(values)s',
                 {'res': self.name, 'id': row_id, 'values': values})
