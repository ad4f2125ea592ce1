"""Key/value metadata rows of any resource (volumes, snapshots): read, merge or replace, delete.

Each table is a KeyValueMixin model with a foreign key column naming its owner row; the
functions take the model and that column's name, so one rule serves every resource.
"""

import functools

import sqlalchemy as sa

from cinderlike.db import conditional, dialects, id_lists
from cinderlike.db import engine as db_engine
from cinderlike.db.models import utcnow


@functools.cache
def _get_statement(model, owner: str, dialect: str):
    """The live rows of the owners :ids, built once per table and dialect."""
    table = model.__table__
    return sa.select(table.c[owner], table.c.key, table.c.value).where(
        id_lists.among(table.c[owner], dialect), table.c.deleted == sa.false()).order_by(
        table.c.id)


@functools.cache
def as_object(model, owner: str, owner_id, dialect: str, keys: tuple[str, ...] | None = None):
    """A column of a listing of the owners (*owner_id*, their id column): the correlated
    subquery of one owner's live rows (those of *keys* only, when given) as one JSON object,
    read as a dict (None: no rows).

    NOTE(listing): a page's metadata read with its rows, instead of one more statement that
    names every id of the page (`= ANY` of 500 ids, which the server parses and plans
    again at every listing). Built once per table and dialect.
    """
    table = model.__table__
    if dialect == 'postgresql':
        # NOTE(order): the keys in the rows' order, as get() builds them.
        aggregate = sa.func.json_object_agg(
            table.c.key, dialects.module(dialect).aggregate_order_by(table.c.value, table.c.id))
    elif dialect == 'sqlite':
        aggregate = sa.func.json_group_object(table.c.key, table.c.value)
    else:
        aggregate = sa.func.json_objectagg(table.c.key, table.c.value)
    where = [table.c[owner] == owner_id, table.c.deleted == sa.false()]
    if keys is not None:
        where.append(table.c.key.in_(keys))
    return sa.select(sa.type_coerce(aggregate, sa.JSON)).where(*where).scalar_subquery()


def get(db, model, owner: str, *, ids: list[str], session=None) -> dict[str, dict[str, str]]:
    """{owner id: {key: value}} of the live rows, for every id in one query."""
    found: dict[str, dict[str, str]] = {i: {} for i in ids}
    if not ids:
        return found
    with db.reader(session) as s:
        rows = db_engine.execute(s, _get_statement(model, owner, db.dialect), {'ids': ids})
        for owner_id, key, value in rows:
            found[owner_id][key] = value
    return found


def update(db, model, owner: str, *, owner_id: str, metadata: dict[str, str],
           replace: bool = False, session=None) -> dict[str, str]:
    """Merge *metadata* into the owner's (the whole set with *replace*); the result."""
    column = getattr(model, owner)
    now = utcnow()
    with db.writer(session) as s:
        rows = {r.key: r for r in s.scalars(sa.select(model).where(
            column == owner_id, model.deleted == sa.false()))}
        for key, row in rows.items():
            if key in metadata:
                row.value = metadata[key]
            elif replace:
                row.deleted, row.deleted_at = True, now
        s.add_all(model(**{owner: owner_id}, key=k, value=v)
                  for k, v in metadata.items() if k not in rows)
        s.flush()
        return get(db, model, owner, ids=[owner_id], session=s)[owner_id]


def delete(db, model, owner: str, *, owner_id: str, key: str, session=None) -> bool:
    """Soft-delete one key; False when the owner has no such live key."""
    with db.writer(session) as s:
        return bool(conditional.update(
            s, model, values={'deleted': True, 'deleted_at': utcnow()},
            where=[getattr(model, owner) == owner_id, model.key == key,
                   model.deleted == sa.false()]))
