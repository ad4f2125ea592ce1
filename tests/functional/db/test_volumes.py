"""Volume transitions as compare-and-swap UPDATEs on real PostgreSQL and MariaDB, and the
lookups of many volumes' extras.

Two threads released together by a barrier race for the same volume; exactly one UPDATE
matches its expected state, and the other gets Cinder's InvalidVolume 400.
"""

import uuid

import pytest
import sqlalchemy as sa

from cinderlike import exception
from cinderlike.db import volume_types as db_types
from cinderlike.db import volumes as db_volumes
from cinderlike.db.models import (
    Snapshot,
    Volume,
    VolumeAdminMetadata,
    VolumeAttachment,
    VolumeMetadata,
    utcnow,
)
from tests.fixtures.race import race


def _volume(db, **values):
    values = {'status': 'available', 'size': 1, 'host': 'node@fake#pool', 'project_id': 'p1',
              'volume_type_id': 'type-1', 'attach_status': 'detached', **values}
    return db_volumes.create(db, values=values)



def _delete(db, volume_id):
    return lambda: db_volumes.MACHINE.begin(db, row_id=volume_id, action='delete')


def _extend(db, volume_id):
    return lambda: db_volumes.MACHINE.begin(db, row_id=volume_id, action='extend')


@pytest.mark.parametrize('attempt', range(5))
def test_two_deletes_exactly_one_wins(db, attempt):
    volume = _volume(db)
    results = race(_delete(db, volume.id), _delete(db, volume.id))
    winners = [r for r in results if not isinstance(r, Exception)]
    losers = [r for r in results if isinstance(r, Exception)]
    assert len(winners) == 1 and winners[0].status == 'deleting'
    assert len(losers) == 1 and isinstance(losers[0], exception.InvalidVolume)
    assert losers[0].code == 400
    assert 'available or error or error_restoring' in losers[0].msg
    assert db_volumes.get(db, volume_id=volume.id).status == 'deleting'


@pytest.mark.parametrize('attempt', range(5))
def test_extend_against_delete_exactly_one_wins(db, attempt):
    volume = _volume(db)
    results = race(_extend(db, volume.id), _delete(db, volume.id))
    losers = [r for r in results if isinstance(r, Exception)]
    assert len(losers) == 1 and isinstance(losers[0], exception.InvalidVolume)
    final = db_volumes.get(db, volume_id=volume.id)
    if isinstance(results[0], Exception):
        assert final.status == 'deleting'
        assert 'to extend, currently deleting' in results[0].msg
    else:
        assert (final.status, final.previous_status) == ('extending', 'available')


def test_guards_are_in_the_update(db):
    attached = _volume(db, attach_status='attached')
    migrating = _volume(db, migration_status='migrating')
    grouped = _volume(db, group_id='g1')
    with_snapshot = _volume(db)
    with db.writer() as session:
        session.add(Snapshot(id='s1', volume_id=with_snapshot.id, status='available',
                             volume_type_id='type-1'))
    for volume in (attached, migrating, grouped, with_snapshot):
        with pytest.raises(exception.InvalidVolume):
            db_volumes.MACHINE.begin(db, row_id=volume.id, action='delete')
        assert db_volumes.get(db, volume_id=volume.id).status == 'available'


def test_destroy_unscheduled_loses_to_a_scheduled_host(db):
    placed = _volume(db, status='creating')
    unplaced = _volume(db, status='creating', host=None)
    assert db_volumes.destroy_unscheduled(db, volume_id=placed.id) is False
    assert db_volumes.destroy_unscheduled(db, volume_id=unplaced.id) is True
    with pytest.raises(exception.VolumeNotFound):
        db_volumes.get(db, volume_id=unplaced.id)


def test_pagination_and_filters_agree_across_databases(db):
    ids = [_volume(db, display_name=f'vol-{i}', size=i % 2 + 1, project_id='paging').id
           for i in range(5)]
    db_volumes.update_metadata(db, volume_id=ids[0], metadata={'k': 'v'})
    page1 = db_volumes.get_all(db, project_id='paging', limit=2, sort=[('name', 'asc')])
    page2 = db_volumes.get_all(db, project_id='paging', limit=2, sort=[('name', 'asc')],
                               marker=page1[-1].id)
    assert [v.display_name for v in page1 + page2] == ['vol-0', 'vol-1', 'vol-2', 'vol-3']
    assert [v.id for v in db_volumes.get_all(db, project_id='paging',
                                             filters={'metadata': {'k': 'v'}})] == [ids[0]]
    assert db_volumes.count(db, project_id='paging', filters={'display_name~': 'vol-'}) == 5
    assert db_volumes.count(db, project_id='paging', filters={'size': 2}) == 2


def test_nulls_sort_first_ascending_and_last_descending_and_pages_cross_them(db):
    """MySQL's rule on both servers, whole and page by page (markers on NULL names too)."""
    project = 'nulls'
    named = {_volume(db, display_name=name, project_id=project).id: name
             for name in ('b', None, 'a', None, 'c')}
    for direction, expected in (('asc', [None, None, 'a', 'b', 'c']),
                                ('desc', ['c', 'b', 'a', None, None])):
        sort = [('name', direction)]
        whole = db_volumes.get_all(db, project_id=project, sort=sort)
        assert [named[v.id] for v in whole] == expected
        paged, marker = [], None
        while page := db_volumes.get_all(db, project_id=project, sort=sort, limit=2,
                                         marker=marker):
            paged += page
            marker = page[-1].id
        assert [v.id for v in paged] == [v.id for v in whole]


def test_a_created_volume_is_the_row_as_stored_and_in_its_session(db):
    with db.writer() as s:
        volume = db_volumes.create(db, values={'size': 2, 'project_id': 'p1',
                                               'volume_type_id': 'type-1', 'status': 'creating'},
                                   metadata={'a': '1'}, admin_metadata={'b': '2'}, session=s)
        assert volume in s and not s.dirty
        volume.display_name = 'renamed'  # tracked: written with the transaction
    stored = db_volumes.get(db, volume_id=volume.id)
    for column in Volume.__table__.c.keys():
        assert getattr(volume, column) == getattr(stored, column), column
    assert (stored.display_name, stored.use_quota, stored.bootable, stored.deleted) == (
        'renamed', True, False, False)
    assert stored.created_at is not None and volume.updated_at is not None
    assert db_volumes.get_metadata(db, volume_ids=[volume.id]) == {volume.id: {'a': '1'}}
    assert db_volumes.get_metadata(db, volume_ids=[volume.id], admin=True) == {
        volume.id: {'b': '2'}}


def test_a_begin_on_a_locked_row_returns_it_as_stored_without_reading_it_again(db):
    volume = _volume(db, status='error')
    statements = []

    def record(*args):
        statements.append(args[2])
    with db.writer() as s:
        locked = db_volumes.MACHINE.get(db, row_id=volume.id, session=s, lock=True)
        sa.event.listen(db.engine, 'before_cursor_execute', record)
        try:
            begun = db_volumes.MACHINE.begin(
                db, row_id=volume.id, action='delete', values={'terminated_at': utcnow()},
                session=s, locked=locked)
        finally:
            sa.event.remove(db.engine, 'before_cursor_execute', record)
        assert begun is locked and not s.dirty
    assert [sql.split()[0] for sql in statements] == ['UPDATE']
    stored = db_volumes.get(db, volume_id=volume.id)
    for column in Volume.__table__.c.keys():
        assert getattr(begun, column) == getattr(stored, column), column
    assert (stored.status, stored.previous_status) == ('deleting', 'error')
    # A refused begin leaves the locked row as it is, and says why from it.
    with db.writer() as s:
        locked = db_volumes.MACHINE.get(db, row_id=volume.id, session=s, lock=True)
        with pytest.raises(exception.InvalidVolume):
            db_volumes.MACHINE.begin(db, row_id=volume.id, action='delete', session=s,
                                     values={'terminated_at': utcnow()}, locked=locked)
        assert locked.status == 'deleting'


def test_the_extras_of_many_volumes_come_from_one_lookup_each(db):
    """A listing's metadata and attachments by id (`db/id_lists.py`: one array parameter on
    PostgreSQL, an expanding IN elsewhere): each id gets its own rows, an id without any gets
    an empty entry, a deleted key or a detached attachment is not shown."""
    vols = [_volume(db) for _ in range(3)]
    ids = [v.id for v in vols] + ['no-such-volume']
    db_volumes.update_metadata(db, volume_id=vols[0].id, metadata={'a': '1', 'b': '2'})
    db_volumes.update_metadata(db, volume_id=vols[1].id, metadata={'c': '3'})
    db_volumes.delete_metadata(db, volume_id=vols[0].id, key='b')
    db_volumes.update_metadata(db, volume_id=vols[2].id, metadata={'readonly': 'True'},
                               admin=True)
    with db.writer() as s:
        s.add_all([VolumeAttachment(id=str(uuid.uuid4()), volume_id=vid, attach_status=status,
                                    instance_uuid=server)
                   for vid, status, server in [(vols[1].id, 'attached', 'i-1'),
                                               (vols[1].id, 'detached', 'i-3'),
                                               (vols[2].id, 'attached', 'i-2')]])
    assert db_volumes.get_metadata(db, volume_ids=ids) == {
        vols[0].id: {'a': '1'}, vols[1].id: {'c': '3'}, vols[2].id: {},
        'no-such-volume': {}}
    assert db_volumes.get_metadata(db, volume_ids=ids, admin=True) == {
        vols[0].id: {}, vols[1].id: {}, vols[2].id: {'readonly': 'True'},
        'no-such-volume': {}}
    attached = db_volumes.get_attachments(db, volume_ids=ids)
    assert {vid: [a.instance_uuid for a in rows] for vid, rows in attached.items()} == {
        vols[0].id: [], vols[1].id: ['i-1'], vols[2].id: ['i-2'], 'no-such-volume': []}
    many = [_volume(db).id for _ in range(40)]
    assert db_volumes.get_metadata(db, volume_ids=many) == {vid: {} for vid in many}


def test_a_listing_reads_each_volumes_metadata_with_its_row(db):
    """get_all()'s detail_columns: each row's live keys as a dict in the order they were
    added (None without any), a deleted key left out, of the admin metadata only the keys
    asked for, and whether the volume has an attached attachment (a detached one does not
    count), on PostgreSQL and MariaDB alike."""
    project = f'listed-{uuid.uuid4().hex[:8]}'
    vols = [_volume(db, project_id=project, display_name=f'v{i}') for i in range(3)]
    db_volumes.update_metadata(db, volume_id=vols[0].id, metadata={'z': '1', 'a': '2'})
    db_volumes.update_metadata(db, volume_id=vols[0].id, metadata={'m': '3'})
    db_volumes.delete_metadata(db, volume_id=vols[0].id, key='a')
    db_volumes.update_metadata(db, volume_id=vols[1].id,
                               metadata={'readonly': 'True', 'hidden': 'x'}, admin=True)
    with db.writer() as s:
        s.add_all([VolumeAttachment(id=str(uuid.uuid4()), volume_id=vid, attach_status=status,
                                    instance_uuid='i-1')
                   for vid, status in [(vols[1].id, 'attached'), (vols[2].id, 'detached')]])
    rows = db_volumes.get_all(
        db, project_id=project, sort=[('name', 'asc')], columns=('id', 'display_name'),
        computed=db_volumes.detail_columns(db.dialect, ('readonly', 'attached_mode')))
    assert [(r.display_name, r.metadata, r.admin_metadata, bool(r.attached))
            for r in rows] == [
        ('v0', {'z': '1', 'm': '3'}, None, False),
        ('v1', None, {'readonly': 'True'}, True),
        ('v2', None, None, False)]
    assert list(rows[0].metadata) == ['z', 'm']


def test_type_names_of_several_types_deleted_ones_included(db):
    """get_type_names binds its ids as one array on PostgreSQL (an expanding IN elsewhere):
    each id found gets its name, a deleted type's too (a volume keeps its type); an unknown
    id none."""
    live, gone = (db_types.create(db, name=f'names-{uuid.uuid4().hex[:8]}') for _ in range(2))
    db_types.destroy(db, type_id=gone.id, conf_default_name='__DEFAULT__')
    assert db_volumes.get_type_names(db, type_ids={live.id, gone.id, 'no-such-type'}) == {
        live.id: live.name, gone.id: gone.name}


def _metadata_rows(db, model, volume_id):
    with db.reader() as s:
        return {r.key: (r.deleted, r.deleted_at) for r in s.scalars(
            sa.select(model).where(model.volume_id == volume_id))}


def test_a_destroy_soft_deletes_the_metadata_only_with_the_row(db):
    """MACHINE.destroy: a lost CAS (the row not in `deleting`) leaves the row and its
    metadata live; a won one soft-deletes both metadata tables' live keys at the row's
    deleted_at (on PostgreSQL in one statement with the row's UPDATE), a key deleted
    before keeping its own deleted_at, and another volume's metadata untouched."""
    volume, other = _volume(db, status='deleting'), _volume(db, status='deleting')
    for vid in (volume.id, other.id):
        db_volumes.update_metadata(db, volume_id=vid, metadata={'a': '1', 'b': '2'})
        db_volumes.update_metadata(db, volume_id=vid, metadata={'readonly': 'True'},
                                   admin=True)
    db_volumes.delete_metadata(db, volume_id=volume.id, key='b')
    (_, earlier), = [v for k, v in _metadata_rows(db, VolumeMetadata, volume.id).items()
                     if k == 'b']

    assert db_volumes.MACHINE.destroy(db, row_id=volume.id, action='delete',
                                      where=[Volume.host.is_(None)]) is False
    assert db_volumes.get(db, volume_id=volume.id).status == 'deleting'
    assert _metadata_rows(db, VolumeMetadata, volume.id)['a'] == (False, None)

    statements = []

    def record(*args):
        statements.append(args[2])
    sa.event.listen(db.engine, 'before_cursor_execute', record)
    try:
        assert db_volumes.MACHINE.destroy(db, row_id=volume.id, action='delete') is True
    finally:
        sa.event.remove(db.engine, 'before_cursor_execute', record)
    assert len(statements) == (1 if db.dialect == 'postgresql' else 3)
    with db.reader() as s:
        gone = s.get(Volume, volume.id)
    assert (gone.deleted, gone.status) == (True, 'deleted')
    assert _metadata_rows(db, VolumeMetadata, volume.id) == {
        'a': (True, gone.deleted_at), 'b': (True, earlier)}
    assert _metadata_rows(db, VolumeAdminMetadata, volume.id) == {
        'readonly': (True, gone.deleted_at)}
    assert db_volumes.get_metadata(db, volume_ids=[other.id])[other.id] == {'a': '1', 'b': '2'}
    assert db_volumes.get_metadata(db, volume_ids=[other.id], admin=True)[other.id] == {
        'readonly': 'True'}
    assert db_volumes.MACHINE.destroy(db, row_id=volume.id, action='delete') is False
