"""/group_snapshots (3.14): create (a snapshot and its quota per member, one transaction),
list/detail/show, delete, reset_status (3.19); refusals write nothing and use no quota."""

import uuid

import pytest
import sqlalchemy as sa

from cinderlike.db import group_snapshots as db_group_snapshots
from cinderlike.db import group_types as db_group_types
from cinderlike.db import groups as db_groups
from cinderlike.db import volume_types as db_types
from cinderlike.db.models import Group, GroupSnapshot, Snapshot
from tests.unit.api.type_fixtures import OTHER, admin, user
from tests.unit.api.volume_fixtures import add_volume, usages

URL = '/v3/group_snapshots'
V = '3.14'


@pytest.fixture
def group(seeded):
    gtype = db_group_types.create(seeded, name='gt')
    fast = db_types.create(seeded, name='fast')
    with seeded.writer() as s:
        row = db_groups.create(seeded, session=s, volume_type_ids=[fast.id], values={
            'project_id': 'admin', 'user_id': 'u1', 'group_type_id': gtype.id,
            'availability_zone': 'nova'})
        s.execute(sa.update(Group).where(Group.id == row.id).values(
            status='available', host='node@b1#b1'))
    return db_groups.get(seeded, group_id=row.id)


def _member(db, group, **values):
    return add_volume(db, type_name='fast', host='node@b1#b1', group_id=group.id, **values)


def _rows(db, model):
    with db.reader() as s:
        return list(s.scalars(sa.select(model).where(model.deleted.is_(False))))


def _create(client, group_id, headers=None, **extra):
    return client.simulate_post(URL, headers=headers or admin(V),
                                json={'group_snapshot': dict(group_id=group_id, **extra)})


def test_create_snapshots_every_member_and_counts_each(vclient, seeded, rpc, group):
    members = [_member(seeded, group, size=2), _member(seeded, group, size=3)]
    resp = _create(vclient, group.id, name='gs')
    assert resp.status_code == 202
    gs_id = resp.json['group_snapshot']['id']
    assert resp.json == {'group_snapshot': {'id': gs_id, 'name': 'gs',
                                            'group_type_id': group.group_type_id}}
    snaps = db_group_snapshots.members(seeded, group_snapshot_id=gs_id)
    assert sorted(s.volume_id for s in snaps) == sorted(v.id for v in members)
    assert {s.status for s in snaps} == {'creating'}
    assert usages(seeded)['snapshots'] == (2, 0)
    assert usages(seeded)['gigabytes'][0] == 5 + 5  # the volumes' 5 GB and their snapshots'
    assert usages(seeded)['snapshots_fast'] == (2, 0)
    assert rpc.volume.calls == [('create_group_snapshot', {
        'group_snapshot_id': gs_id, 'host': 'node@b1#b1', 'cluster_name': None})]


@pytest.mark.parametrize('case, status, message', [
    ('bad member', 400, 'Invalid volume: The snapshot cannot be created when the volume is '
                        'in error status.'),
    ('group not available', 400, 'Invalid Group: Group status must be available.'),
    ('unknown group', 404, None),
    ('bad id', 400, None),
])
def test_create_refusals_write_nothing(vclient, seeded, rpc, group, case, status, message):
    _member(seeded, group)
    group_id = group.id
    if case == 'bad member':
        _member(seeded, group, status='error')
    elif case == 'group not available':
        with seeded.writer() as s:
            s.execute(sa.update(Group).values(status='updating'))
    elif case == 'unknown group':
        group_id = str(uuid.uuid4())
    else:
        group_id = 'not-a-uuid'
    resp = _create(vclient, group_id)
    assert resp.status_code == status
    if message:
        assert resp.json['badRequest']['message'] == message
    assert _rows(seeded, GroupSnapshot) == [] and _rows(seeded, Snapshot) == []
    assert usages(seeded).get('snapshots', (0, 0)) == (0, 0)
    assert rpc.volume.calls == []


def test_create_over_the_snapshots_quota_is_413(vclient, seeded, rpc, group):
    _member(seeded, group), _member(seeded, group)
    vclient.simulate_put('/v3/os-quota-sets/admin', headers=admin(),
                         json={'quota_set': {'snapshots': 1}})
    resp = _create(vclient, group.id)
    assert resp.status_code == 413
    assert _rows(seeded, GroupSnapshot) == [] and _rows(seeded, Snapshot) == []


def test_an_empty_group_gets_an_empty_group_snapshot(vclient, seeded, rpc, group):
    assert _create(vclient, group.id).status_code == 202
    assert _rows(seeded, Snapshot) == [] and len(_rows(seeded, GroupSnapshot)) == 1


def test_list_show_and_versions(vclient, seeded, group):
    _member(seeded, group)
    gs_id = _create(vclient, group.id, name='one').json['group_snapshot']['id']
    assert vclient.simulate_get(URL, headers=admin('3.13')).status_code == 404
    assert vclient.simulate_get(URL, headers=admin(V)).json == {
        'group_snapshots': [{'id': gs_id, 'name': 'one'}]}
    shown = vclient.simulate_get(f'{URL}/{gs_id}', headers=admin('3.58')).json['group_snapshot']
    assert (shown['group_id'], shown['status'], shown['project_id']) == (
        group.id, 'creating', 'admin')
    detail = vclient.simulate_get(f'{URL}/detail', headers=admin('3.29'),
                                  params={'limit': '1'}).json
    assert [g['id'] for g in detail['group_snapshots']] == [gs_id]
    assert 'group_snapshot_links' in detail


def test_another_project_sees_nothing(kclient, seeded, group):
    _member(seeded, group)
    with seeded.writer() as s:
        s.add(GroupSnapshot(id='gs-1', group_id=group.id, project_id=OTHER, status='available'))
    resp = kclient.simulate_get(f'{URL}/gs-1', headers=user(version=V))
    assert resp.status_code == 404
    assert resp.json['itemNotFound']['message'] == 'GroupSnapshot gs-1 could not be found.'


def _available(db, gs_id):
    with db.writer() as s:
        s.execute(sa.update(GroupSnapshot).values(status='available'))
        s.execute(sa.update(Snapshot).values(status='available'))


def test_delete_moves_it_and_its_members_to_deleting(vclient, seeded, rpc, group):
    _member(seeded, group)
    gs_id = _create(vclient, group.id).json['group_snapshot']['id']
    assert vclient.simulate_delete(f'{URL}/{gs_id}', headers=admin(V)).status_code == 400
    _available(seeded, gs_id)
    rpc.volume.calls.clear()
    assert vclient.simulate_delete(f'{URL}/{gs_id}', headers=admin(V)).status_code == 202
    assert db_group_snapshots.get(seeded, group_snapshot_id=gs_id).status == 'deleting'
    assert {s.status for s in _rows(seeded, Snapshot)} == {'deleting'}
    assert rpc.volume.calls == [('delete_group_snapshot', {
        'group_snapshot_id': gs_id, 'host': 'node@b1#b1', 'cluster_name': None})]


def test_a_member_snapshot_cannot_be_deleted_alone(vclient, seeded, group):
    _member(seeded, group)
    gs_id = _create(vclient, group.id).json['group_snapshot']['id']
    _available(seeded, gs_id)
    snap, = _rows(seeded, Snapshot)
    resp = vclient.simulate_delete(f'/v3/snapshots/{snap.id}', headers=admin())
    assert resp.status_code == 400
    assert 'must not be part of a group' in resp.json['badRequest']['message']


def test_a_group_with_a_group_snapshot_cannot_be_deleted(vclient, seeded, group):
    gs_id = _create(vclient, group.id).json['group_snapshot']['id']
    _available(seeded, gs_id)
    resp = vclient.simulate_post(f'/v3/groups/{group.id}/action', headers=admin(V),
                                 json={'delete': {'delete-volumes': True}})
    assert resp.status_code == 400
    assert db_groups.get(seeded, group_id=group.id).status == 'available'


def test_reset_status_is_3_19_and_admin(vclient, seeded, group):
    gs_id = _create(vclient, group.id).json['group_snapshot']['id']
    url = f'{URL}/{gs_id}/action'
    body = {'reset_status': {'status': 'ERROR'}}
    assert vclient.simulate_post(url, headers=admin('3.18'), json=body).status_code == 404
    assert vclient.simulate_post(url, headers=admin('3.19'), json=body).status_code == 202
    assert db_group_snapshots.get(seeded, group_snapshot_id=gs_id).status == 'error'
    bad = vclient.simulate_post(url, headers=admin('3.19'),
                                json={'reset_status': {'status': 'nope'}})
    assert bad.status_code == 400
    assert db_group_snapshots.get(seeded, group_snapshot_id=gs_id).status == 'error'
