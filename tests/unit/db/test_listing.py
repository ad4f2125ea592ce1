"""db/listing.py: plain rows read back as the columns they hold, by name and by position."""

import datetime

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
