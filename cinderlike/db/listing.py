"""Sorting and marker pagination shared by every listing (Cinder's paginate_query).

Rows are ordered by the requested keys plus `created_at` and `id`, so pages are stable;
the marker row's values open the next page with one keyset predicate.
"""

import sqlalchemy as sa

from cinderlike import exception

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


def _null_flag(column):
    # NOTE(nulls): NULLs sort first ascending and last descending on every database (MySQL's
    # and SQLite's rule); PostgreSQL would do the opposite without this leading flag.
    return sa.case((column.is_(None), 0), else_=1)


def order_by(stmt, pairs):
    """*stmt* ordered by the (column, direction) *pairs*."""
    clauses = []
    for column, direction in pairs:
        for expr in (_null_flag(column), column):
            clauses.append(expr.asc() if direction == 'asc' else expr.desc())
    return stmt.order_by(*clauses)


def after_marker(pairs, marker_row):
    """The predicate selecting rows that come after *marker_row* in *pairs* order."""
    terms = []
    for column, direction in pairs:
        value = getattr(marker_row, column.key)
        terms.append((_null_flag(column), 0 if value is None else 1, direction))
        terms.append((column, value, direction))
    alternatives = []
    for index, (expr, value, direction) in enumerate(terms):
        if value is None:
            continue  # nothing sorts strictly after/before NULL among NULLs
        equal = [e.is_(None) if v is None else e == v for e, v, _d in terms[:index]]
        beyond = expr > value if direction == 'asc' else expr < value
        alternatives.append(sa.and_(*equal, beyond))
    return sa.or_(*alternatives) if alternatives else sa.false()
