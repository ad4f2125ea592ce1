"""A detail page on MariaDB, read as one JSON array per row (db/packed_rows.py), holds the
values and types a column-by-column read gives, whatever the rows hold."""

import datetime
import uuid

import pytest
import sqlalchemy as sa

from cinderlike.api.views import volumes as view
from cinderlike.db import engine, migration, packed_rows
from cinderlike.db import volume_types as db_types
from cinderlike.db import volumes as db_volumes
from cinderlike.db.models import Volume, VolumeAdminMetadata, VolumeAttachment, VolumeType
from tests.fixtures.database import fresh_database

pytestmark = pytest.mark.mysql

AWKWARD = 'é ü 漢字 🙂 "quoted" \\back\\slash\n\ttab \x01 </script>'


@pytest.fixture(scope='module')
def db(mysql_server_url):
    with fresh_database(mysql_server_url) as url:
        migration.upgrade(url)
        database = engine.Database(url)
        yield database
        database.dispose()


def _seed(db) -> str:
    project = f'p-{uuid.uuid4().hex[:8]}'
    type_id = db_types.get_by_name(db, name='__DEFAULT__').id
    base = {'project_id': project, 'user_id': 'u', 'status': 'available', 'size': 1,
            'host': 'h@b#p', 'volume_type_id': type_id, 'attach_status': 'detached',
            'availability_zone': 'nova'}
    plain = db_volumes.create(db, values={**base, 'display_name': 'plain'})
    # NOTE(type): a volume keeps its type's name after the type is deleted.
    gone_type = str(uuid.uuid4())
    with db.writer() as s:
        s.execute(sa.insert(VolumeType).values(id=gone_type, name=AWKWARD, is_public=True,
                                               deleted=True))
    db_volumes.create(db, values={
        **base, 'volume_type_id': gone_type, 'display_name': AWKWARD,
        'display_description': AWKWARD,
        'size': 2**31 - 1, 'bootable': True, 'multiattach': True, 'shared_targets': False,
        'use_quota': False, 'migration_status': 'migrating', 'provider_id': AWKWARD[:40],
        'created_at': datetime.datetime(2026, 12, 5, 23, 45, 8, 123456),
        'updated_at': datetime.datetime(2026, 12, 5, 23, 45, 9)},
        metadata={'k': AWKWARD, AWKWARD[:20]: ''})
    attached = db_volumes.create(db, values={**base, 'display_name': 'attached',
                                             'shared_targets': True, 'status': 'in-use',
                                             'attach_status': 'attached'},
                                 metadata={'a': 'b'})
    with db.writer() as s:
        s.add_all([
            VolumeAdminMetadata(volume_id=attached.id, key='readonly', value='True'),
            VolumeAdminMetadata(volume_id=attached.id, key='hidden', value='x'),
            VolumeAdminMetadata(volume_id=plain.id, key='attached_mode', value='rw'),
            VolumeAttachment(id=str(uuid.uuid4()), volume_id=attached.id,
                             attach_status='attached', instance_uuid=str(uuid.uuid4())),
            VolumeAttachment(id=str(uuid.uuid4()), volume_id=plain.id,
                             attach_status='detached'),
        ])
        s.execute(sa.update(Volume).where(Volume.id == plain.id).values(updated_at=None))
    return project


def _page(db, project, *, sent):
    with db.reader() as s:
        sa.event.listen(s.connection(), 'before_cursor_execute',
                        lambda _c, _cur, statement, *_a: sent.append(statement))
        return db_volumes.get_all(
            db, project_id=project, columns=view.DETAIL_COLUMNS,
            computed=db_volumes.detail_columns('mysql', view.VISIBLE_ADMIN_METADATA),
            session=s)


def test_a_packed_page_equals_the_column_by_column_read(db, monkeypatch):
    project = _seed(db)
    packed_sent, plain_sent = [], []
    packed = _page(db, project, sent=packed_sent)
    monkeypatch.setattr(packed_rows, 'DIALECTS', ())
    plain = _page(db, project, sent=plain_sent)

    assert 'json_array(' in packed_sent[-1].lower()
    assert 'json_array(' not in plain_sent[-1].lower()
    assert [row.id for row in packed] == [row.id for row in plain] and len(plain) == 3
    names = view.DETAIL_COLUMNS + ('metadata', 'admin_metadata', 'attached', 'type_name')
    for got, expected in zip(packed, plain, strict=True):
        for name, value, wanted in zip(names, got, expected, strict=True):
            assert (value, type(value)) == (wanted, type(wanted)), name
    by_name = {row.display_name: row for row in packed}
    assert by_name[AWKWARD].created_at == datetime.datetime(2026, 12, 5, 23, 45, 8, 123456)
    assert by_name[AWKWARD].metadata == {'k': AWKWARD, AWKWARD[:20]: ''}
    assert by_name['attached'].attached and not by_name['plain'].attached
    assert by_name[AWKWARD].type_name == AWKWARD
    assert by_name['plain'].type_name == '__DEFAULT__'
    assert by_name['attached'].admin_metadata == {'readonly': 'True'}
    assert by_name['plain'].updated_at is None
