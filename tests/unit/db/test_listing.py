"""db/listing.py: plain rows read back as the columns they hold, by name and by position."""

import datetime

import sqlalchemy as sa
from sqlalchemy.dialects import mysql, postgresql, sqlite

from cinderlike.db import listing
from cinderlike.db import volumes as db_volumes
from cinderlike.db.models import Volume


def test_a_plain_row_reads_every_column_by_name_and_by_position(db):
    created = datetime.datetime(2026, 12, 4, 3, 0, 0, 123456)
    with db.writer() as s:
        s.add(Volume(id='v1', project_id='p', size=3, status='available', volume_type_id='t',
                     bootable=True, _name_id='n1', created_at=created))

    [row] = db_volumes.get_all(db, project_id='p')

    assert isinstance(row, listing.plain_row(Volume.__table__))
    names = Volume.__table__.columns.keys()
    assert len(row) == len(names)
    assert [getattr(row, name) for name in names] == list(row)
    assert (row.id, row.size, row.status, row.bootable, row._name_id, row.created_at) == (
        'v1', 3, 'available', True, 'n1', created)
    assert row.deleted is False


def test_a_listing_of_some_columns_reads_only_those(db):
    with db.writer() as s:
        s.add(Volume(id='v1', project_id='p', size=3, status='available', volume_type_id='t',
                     display_name='one', provider_location='somewhere'))

    [row] = db_volumes.get_all(db, project_id='p', columns=('id', 'display_name', 'size'))

    assert tuple(row) == ('v1', 'one', 3)
    assert (row.id, row.display_name, row.size) == ('v1', 'one', 3)
    assert not hasattr(row, 'provider_location')


def test_the_order_is_the_columns_own_with_nulls_spelled_out_only_on_postgresql_and_nullable():
    pairs = listing.sort_params(Volume, [('display_name', 'asc')])
    stmt = listing.order_by(sa.select(Volume.id), pairs)
    orders = {name: str(stmt.compile(dialect=dialect)).split('ORDER BY ')[1]
              for name, dialect in (('postgresql', postgresql.dialect()),
                                    ('mysql', mysql.dialect()), ('sqlite', sqlite.dialect()))}
    assert orders == {
        'postgresql': 'volumes.display_name ASC NULLS FIRST, '
                      'volumes.created_at ASC NULLS FIRST, volumes.id ASC',
        'mysql': 'volumes.display_name ASC, volumes.created_at ASC, volumes.id ASC',
        'sqlite': 'volumes.display_name ASC, volumes.created_at ASC, volumes.id ASC'}
    # NOTE(cache): compiled statements are cached by key; the direction is part of it.
    def key(sort):
        return listing.order_by(sa.select(Volume.id), listing.sort_params(
            Volume, sort))._generate_cache_key().key
    assert key([('display_name', 'asc')]) == key([('display_name', 'asc')])
    assert key([('display_name', 'asc')]) != key([('display_name', 'desc')])


def test_nulls_sort_first_ascending_and_last_descending_on_sqlite(db):
    with db.writer() as s:
        for index, name in enumerate(('b', None, 'a')):
            s.add(Volume(id=f'v{index}', project_id='p', size=1, status='available',
                         volume_type_id='t', display_name=name))
    for direction, expected in (('asc', [None, 'a', 'b']), ('desc', ['b', 'a', None])):
        rows = db_volumes.get_all(db, project_id='p', sort=[('name', direction)])
        assert [row.display_name for row in rows] == expected
