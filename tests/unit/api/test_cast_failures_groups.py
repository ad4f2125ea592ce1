"""A group cast the broker does not take: 503 with Cinder's body, and the request's writes
undone (group, member volumes and snapshots, quota, pool claims); create, create from a
source, update, delete, and group snapshots' create and delete."""

import pytest
import sqlalchemy as sa

from cinderlike.db import group_snapshots as db_group_snapshots
from cinderlike.db import groups as db_groups
from cinderlike.db import pools as db_pools
from cinderlike.db import volume_types as db_types
from cinderlike.db import volumes as db_volumes
from cinderlike.db.models import Group, GroupSnapshot, Pool, Snapshot
from tests.unit.api.test_cast_failures import UNAVAILABLE, Unreachable, _reservations
from tests.unit.api.test_group_snapshots import _create, _member, group  # noqa: F401
from tests.unit.api.type_fixtures import admin
from tests.unit.api.volume_fixtures import add_volume, usages, volume_rows

GROUPS = '/v3/groups'
POOL = 'node@b1#b1'


def _rows(db, model):
    with db.reader() as s:
        return list(s.scalars(sa.select(model).where(model.deleted.is_(False))))


def _held(db) -> dict[str, tuple[int, int]]:
    """The project's usages other than zero: what the rows left count (usages are synced
    from the rows when first reserved), nothing reserved."""
    return {key: value for key, value in usages(db).items() if value != (0, 0)}


def test_group_create_whose_cast_fails_leaves_no_group_or_quota(vclient, seeded, rpc,
                                                                group):  # noqa: F811
    db_types.create(seeded, name='slow')
    rpc.scheduler = Unreachable()
    resp = vclient.simulate_post(GROUPS, headers=admin('3.13'), json={'group': {
        'group_type': 'gt', 'volume_types': ['fast', 'slow']}})
    assert (resp.status_code, resp.json) == (503, UNAVAILABLE)
    assert [g.id for g in _rows(seeded, Group)] == [group.id]
    assert _held(seeded) == {'groups': (1, 0)} and _reservations(seeded) == []


def test_group_create_placed_although_the_send_raised_stands(vclient, seeded, rpc,
                                                             group):  # noqa: F811
    rpc.scheduler = Unreachable(before=lambda m, kw: db_groups.place(
        seeded, group_id=kw['group_id'], host=POOL, cluster_name=None))
    resp = vclient.simulate_post(GROUPS, headers=admin('3.13'), json={'group': {
        'group_type': 'gt', 'volume_types': ['fast']}})
    assert resp.status_code == 202
    assert db_groups.get(seeded, group_id=resp.json['group']['id']).host == POOL


@pytest.mark.parametrize('delete_volumes', [False, True])
def test_group_delete_whose_cast_fails_restores_group_and_members(vclient, seeded, rpc,
                                                                  group,  # noqa: F811
                                                                  delete_volumes):
    members = ([_member(seeded, group, status='available'), _member(seeded, group,
                                                                      status='error')]
               if delete_volumes else [])
    with seeded.writer() as s:
        s.execute(sa.update(Group).values(status='error'))
    rpc.volume = Unreachable()
    resp = vclient.simulate_post(f'{GROUPS}/{group.id}/action', headers=admin('3.13'),
                                 json={'delete': {'delete-volumes': delete_volumes}})
    assert (resp.status_code, resp.json) == (503, UNAVAILABLE)
    assert db_groups.get(seeded, group_id=group.id).status == 'error'
    assert [db_volumes.get(seeded, volume_id=v.id).status for v in members] == [
        v.status for v in members]


def test_group_update_whose_cast_fails_restores_status_name_and_members(vclient, seeded,
                                                                        rpc,
                                                                        group):  # noqa: F811
    joining = add_volume(seeded, type_name='fast', host=POOL)
    rpc.volume = Unreachable()
    resp = vclient.simulate_put(f'{GROUPS}/{group.id}', headers=admin('3.13'), json={
        'group': {'name': 'renamed', 'add_volumes': joining.id}})
    assert (resp.status_code, resp.json) == (503, UNAVAILABLE)
    row = db_groups.get(seeded, group_id=group.id)
    assert (row.status, row.name) == ('available', group.name)
    assert db_volumes.get(seeded, volume_id=joining.id).group_id is None


def test_group_snapshot_create_whose_cast_fails_leaves_no_rows_or_quota(vclient, seeded,
                                                                        rpc,
                                                                        group):  # noqa: F811
    _member(seeded, group, size=2), _member(seeded, group, size=3)
    rpc.volume = Unreachable()
    resp = _create(vclient, group.id, name='gs')
    assert (resp.status_code, resp.json) == (503, UNAVAILABLE)
    assert _rows(seeded, GroupSnapshot) == [] and _rows(seeded, Snapshot) == []
    assert _held(seeded) == {'gigabytes': (5, 0), 'gigabytes_fast': (5, 0)}
    assert _reservations(seeded) == []
    assert db_groups.get(seeded, group_id=group.id).status == 'available'


def test_group_snapshot_delete_whose_cast_fails_restores_it_and_its_members(vclient, seeded,
                                                                            rpc,
                                                                            group):  # noqa: F811
    _member(seeded, group)
    gs_id = _create(vclient, group.id).json['group_snapshot']['id']
    with seeded.writer() as s:
        s.execute(sa.update(GroupSnapshot).values(status='error'))
        s.execute(sa.update(Snapshot).values(status='available'))
    rpc.volume = Unreachable()
    resp = vclient.simulate_delete(f'/v3/group_snapshots/{gs_id}', headers=admin('3.14'))
    assert (resp.status_code, resp.json) == (503, UNAVAILABLE)
    assert db_group_snapshots.get(seeded, group_snapshot_id=gs_id).status == 'error'
    assert [s.status for s in db_group_snapshots.members(
        seeded, group_snapshot_id=gs_id)] == ['available']


def test_group_from_source_whose_cast_fails_leaves_no_group_volumes_quota_or_claim(
        vclient, seeded, rpc, group):  # noqa: F811
    with seeded.writer() as s:
        s.add(Pool(name=POOL, backend='node@b1', allocated_capacity_gb=0,
                   provisioned_capacity_gb=0, capacity_limit_gb=100))
    member = _member(seeded, group, size=4)
    rpc.volume = Unreachable()
    resp = vclient.simulate_post(f'{GROUPS}/action', headers=admin('3.14'), json={
        'create-from-src': {'name': 'copy', 'source_group_id': group.id}})
    assert (resp.status_code, resp.json) == (503, UNAVAILABLE)
    assert [g.id for g in _rows(seeded, Group)] == [group.id]
    assert [v.id for v in volume_rows(seeded)] == [member.id]
    assert db_pools.claims(seeded)[POOL][0] == 0
    # What the source group and its member count; nothing of the copy.
    assert _held(seeded) == {'groups': (1, 0), 'volumes': (1, 0), 'volumes_fast': (1, 0),
                             'gigabytes': (4, 0), 'gigabytes_fast': (4, 0)}
    assert _reservations(seeded) == []
