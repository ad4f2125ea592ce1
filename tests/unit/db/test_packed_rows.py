"""db/packed_rows.py: which columns a JSON array carries, and how its values are decoded."""

import datetime

import sqlalchemy as sa

from cinderlike.db import packed_rows

TABLE = sa.Table(
    't', sa.MetaData(), sa.Column('id', sa.String(36)), sa.Column('n', sa.BigInteger),
    sa.Column('flag', sa.Boolean), sa.Column('at', sa.DateTime), sa.Column('doc', sa.JSON),
    sa.Column('price', sa.Numeric(10, 2)), sa.Column('blob', sa.LargeBinary),
    sa.Column('wrapped', sa.types.PickleType))


def test_strings_integers_booleans_datetimes_and_json_are_packed():
    columns = (TABLE.c.id, TABLE.c.n, TABLE.c.flag, TABLE.c.at, TABLE.c.doc,
               sa.exists().where(TABLE.c.id == 'x'))
    packed = packed_rows.packed(columns)
    assert 'json_array(' in str(packed.select).lower()
    row = packed.decode('["a", 9007199254740993, 1, "2026-12-05 23:45:08.000001", '
                        '{"k": [1]}, "0"]')
    assert row == ['a', 9007199254740993, True, datetime.datetime(2026, 12, 5, 23, 45, 8, 1),
                   {'k': [1]}, False]
    assert packed.decode('[null, null, null, null, null, null]') == [None] * 6


def test_a_page_with_a_column_json_would_alter_is_read_column_by_column():
    for column in (TABLE.c.price, TABLE.c.blob, TABLE.c.wrapped):
        assert packed_rows.packed((TABLE.c.id, column)) is None
