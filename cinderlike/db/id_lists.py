"""`column IN (ids)` for lookups of many rows by id (a listing's metadata and attachments).

NOTE(perf): an expanding IN renders one placeholder per id on every execution, and the
driver then quotes each value into the statement: for a listing of 500 volumes, three such
lookups cost more than the page's own query. On PostgreSQL the ids go as one array
parameter, `= ANY(:ids)`, which psycopg2 adapts in C and whose statement text is the same
for any number of ids; other databases keep the expanding IN.
"""

import sqlalchemy as sa


def among(column, dialect: str, name: str = 'ids'):
    """The predicate *column* is one of the ids bound as :*name* (a list) on *dialect*."""
    if dialect == 'postgresql':
        return column == sa.any_(sa.bindparam(name, type_=sa.ARRAY(column.type)))
    return column.in_(sa.bindparam(name, expanding=True))
