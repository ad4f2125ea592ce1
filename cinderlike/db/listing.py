"""Sorting and marker pagination shared by every listing (Cinder's paginate_query).

Rows are ordered by the requested keys plus `created_at` and `id`, so pages are stable;
the marker row's values open the next page with one keyset predicate.
"""

import dataclasses
import functools
import operator
from collections.abc import Callable

import sqlalchemy as sa

from cinderlike import exception
from cinderlike.db import engine as db_engine
from cinderlike.db import ordering, packed_rows

DEFAULT_SORT = (('created_at', 'desc'),)
_DIRS = ('asc', 'desc')


def sort_params(model, sort: list[tuple[str, str | None]] | None,
                aliases: dict[str, str] | None = None) -> list[tuple[sa.ColumnElement, str]]:
    """(column, direction) pairs for *sort*, completed with created_at and id (Cinder's rule).

    :raises InvalidInput: for a key that is not a column or a direction other than asc/desc.
    """
    sort = list(sort or DEFAULT_SORT)
    default_dir = sort[0][1] or 'desc'
    wanted = [(key, direction or default_dir) for key, direction in sort]
    names = [key for key, _dir in wanted]
    for key in ('created_at', 'id'):
        if key not in names:
            wanted.append((key, default_dir))
    pairs = []
    for key, direction in wanted:
        if direction not in _DIRS:
            raise exception.InvalidInput(reason="Unknown sort direction, must be 'desc' or 'asc'")
        column = getattr(model, (aliases or {}).get(key, key), None)
        if not isinstance(column, sa.orm.InstrumentedAttribute):
            raise exception.InvalidInput(reason=f'Invalid sort key: {key}')
        pairs.append((column, direction))
    return pairs


def order_by(stmt, pairs):
    """*stmt* ordered by the (column, direction) *pairs*."""
    return stmt.order_by(*(ordering.SortKey(column, direction) for column, direction in pairs))


def after_marker(pairs, marker_row):
    """The predicate selecting rows that come after *marker_row* in *pairs* order (NULLs
    first ascending and last descending: ordering.SortKey).

    NOTE(index): plain comparisons of the columns, so that the databases can start from the
    marker in an index on them; a NULL's place is said with IS [NOT] NULL, and not at all
    for a NOT NULL column.
    """
    alternatives, equal = [], []
    for column, direction in pairs:
        value = getattr(marker_row, column.key)
        if value is None:
            # Ascending, every value comes after NULL; descending, nothing does.
            beyond = [column.is_not(None)] if direction == 'asc' else []
            same = column.is_(None)
        else:
            beyond = [column > value if direction == 'asc' else column < value]
            if direction == 'desc' and ordering.nullable(column):
                beyond.append(column.is_(None))
            same = column == value
        alternatives += [sa.and_(*equal, term) for term in beyond]
        equal.append(same)
    return sa.or_(*alternatives) if alternatives else sa.false()


def column_clauses(model, filters: dict) -> list | None:
    """WHERE clauses of plain column filters on *model*; None when a key names no column.

    A list value means IN, `<key>~` means LIKE '%value%' (3.34), None means IS NULL.
    NOTE(unknown): as Cinder, a filter on no column matches nothing (admins only get this
    far; other callers' keys were checked against the resource's allowed filters).
    """
    clauses = []
    for key, value in filters.items():
        column = getattr(model, key.rstrip('~'), None)
        if not isinstance(column, sa.orm.InstrumentedAttribute):
            return None
        if key.endswith('~'):
            clauses.append(column.like(f'%{value}%'))
        elif isinstance(value, (list, tuple, set, frozenset)):
            clauses.append(column.in_(list(value)))
        else:
            clauses.append(column.is_(None) if value is None else column == value)
    return clauses


@dataclasses.dataclass(frozen=True)
class Listing:
    """The listing of one resource: its model, its filters' WHERE clauses (None when a
    filter names nothing, so nothing matches) and the error of a marker nobody sees."""

    model: type
    filter_clauses: Callable[[dict], list | None]
    marker_not_found: Callable[[str], Exception]
    # Pages of Core rows (the columns by name, read-only) instead of ORM instances.
    plain_rows: bool = False

    def scope(self, project_id: str | None, filters: dict | None) -> list | None:
        """WHERE clauses of the live rows (of *project_id*) matching *filters*."""
        where = [self.model.deleted == sa.false()]
        if project_id is not None:
            where.append(self.model.project_id == project_id)
        extra = self.filter_clauses(filters or {})
        return None if extra is None else where + extra

    def get_all(self, db, *, project_id: str | None, filters: dict | None = None,
                marker: str | None = None, limit: int | None = None,
                offset: int | None = None, sort: list[tuple[str, str | None]] | None = None,
                sort_aliases: dict[str, str] | None = None,
                columns: tuple[str, ...] | None = None, computed: tuple = (),
                session=None) -> list:
        """One page of rows (every project's when *project_id* is None); plain rows hold
        only *columns* when given, then each (name, expression) of *computed*.

        :raises: marker_not_found for a *marker* the caller does not see; InvalidInput on
            a bad sort key or direction.
        """
        pairs = sort_params(self.model, sort, aliases=sort_aliases)
        where = self.scope(project_id, filters)
        if where is None or limit == 0:
            return []
        with db.reader(session) as s:
            marker_row = None
            if marker is not None:
                # NOTE(perf): only the values the page starts after (PyMySQL decodes each
                # column in Python; a volume row has 39).
                marker_row = s.execute(sa.select(*dict.fromkeys(
                    column for column, _ in pairs)).where(
                    *self.scope(project_id, None), self.model.id == marker)).first()
                if marker_row is None:
                    raise self.marker_not_found(marker)
            return page(s, self.model, where=where, pairs=pairs, marker_row=marker_row,
                        limit=limit, offset=offset, plain_rows=self.plain_rows,
                        columns=columns, computed=computed)

    def count(self, db, *, project_id: str | None, filters: dict | None = None,
              session=None) -> int:
        """How many rows match, ignoring pagination (`with_count`, 3.45); in *session*'s
        transaction when given (a page's)."""
        where = self.scope(project_id, filters)
        if where is None:
            return 0
        stmt = sa.select(sa.func.count()).select_from(self.model).where(*where)
        with db.reader(session) as s:
            return db_engine.execute(s, stmt).scalar()


def page(s, model, *, where: list, pairs, marker_row=None, limit: int | None = None,
         offset: int | None = None, plain_rows: bool = False,
         columns: tuple[str, ...] | None = None, computed: tuple = ()) -> list:
    """The rows of *model* matching *where*, in *pairs* order, after *marker_row*.

    NOTE(plain_rows): a Core row costs a fraction of an ORM instance to load and to read
    (measured: about a third of GET /volumes/detail of 500 went to instances). They are read
    on the session's connection: through the session, SQLAlchemy's ORM loading would still
    run one Python call per column of every row. Each becomes a plain_row() tuple, of
    *columns* only when given: the driver decodes every column it is sent (PyMySQL, in
    Python), so a view reads no column it does not show. Plain rows also hold each (name,
    expression) of *computed* (built once: it is part of the statement's cache key).
    """
    if marker_row is not None:
        where = [*where, after_marker(pairs, marker_row)]
    packed = None
    if not plain_rows:
        stmt = sa.select(model)
    else:
        table = model.__table__
        if s.bind.dialect.name in packed_rows.DIALECTS:
            packed = packed_rows.packed(_read(table, columns, computed))
        stmt = packed.select if packed else _plain_select(table, columns, computed)
    stmt = order_by(stmt.where(*where), pairs)
    if offset:
        stmt = stmt.offset(offset)
    if limit is not None:
        stmt = stmt.limit(limit)
    if not plain_rows:
        return list(s.scalars(stmt))
    make = plain_row(model.__table__, columns, tuple(name for name, _ in computed))
    rows = s.connection().execute(stmt)
    if packed:
        return [make(packed.decode(text)) for (text,) in rows]
    return [make(row) for row in rows]


def _column_names(table: sa.Table, columns: tuple[str, ...] | None) -> tuple[str, ...]:
    """The columns a plain page reads before its computed ones: *columns*, or *table*'s."""
    return tuple(columns or table.columns.keys())


def _read(table: sa.Table, columns: tuple[str, ...] | None, computed: tuple, *,
          labelled: bool = False) -> tuple:
    """What a plain page reads, in its rows' order: its columns, then the expressions of
    *computed* (*labelled* with their names: JSON_ARRAY() takes them unlabelled)."""
    return (*(table.c[name] for name in _column_names(table, columns)),
            *(expression.label(name) if labelled else expression
              for name, expression in computed))


@functools.cache
def _plain_select(table: sa.Table, columns: tuple[str, ...] | None,
                  computed: tuple = ()) -> sa.Select:
    """NOTE(perf): built once; each page's where() is a copy of it."""
    return sa.select(*_read(table, columns, computed, labelled=True))


def plain_row(table: sa.Table, columns: tuple[str, ...] | None = None,
              computed: tuple[str, ...] = ()) -> type:
    """A tuple type of *table*'s columns (or of *columns*), then of the *computed* names,
    each also readable by name (row.status).

    NOTE(perf): reading a column of SQLAlchemy's Row by name costs ten times reading it by
    position; a detail view reads about thirty per row.
    """
    return _row_type(table, _column_names(table, columns) + computed)


@functools.cache
def _row_type(table: sa.Table, columns: tuple[str, ...]) -> type:
    fields = {name: property(operator.itemgetter(index), doc=f'column {name}')
              for index, name in enumerate(columns)}
    return type(f'{table.name}_row', (tuple,), {'__slots__': (), **fields})
