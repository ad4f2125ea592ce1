"""POST /groups/action create-from-src (3.14): a group and a volume per source member, in
one transaction with the quotas and the capacity claims on the sources' pools; refusals
write nothing."""

import uuid

import pytest
import sqlalchemy as sa

from cinderlike.db import group_snapshots as db_group_snapshots
from cinderlike.db import groups as db_groups
from cinderlike.db import pools as db_pools
from cinderlike.db.models import Group, GroupSnapshot, Pool, Snapshot
from tests.unit.api.test_group_snapshots import _create, _member, group  # noqa: F401
from tests.unit.api.type_fixtures import admin
from tests.unit.api.volume_fixtures import usages, volume_rows

URL = '/v3/groups/action'
POOL = 'node@b1#b1'


@pytest.fixture
def pool(seeded):
    with seeded.writer() as s:
        s.add(Pool(name=POOL, backend='node@b1', allocated_capacity_gb=0,
                   provisioned_capacity_gb=0, capacity_limit_gb=100))
    return POOL


def _from(client, **source):
    return client.simulate_post(URL, headers=admin('3.14'),
                                json={'create-from-src': dict(name='copy', **source)})


def _snapshotted(vclient, db, group):  # noqa: F811
    members = [_member(db, group, size=2), _member(db, group, size=3)]
    gs_id = _create(vclient, group.id).json['group_snapshot']['id']
    with db.writer() as s:
        s.execute(sa.update(GroupSnapshot).values(status='available'))
        s.execute(sa.update(Snapshot).values(status='available'))
    return members, gs_id


def _new_group(db, source_id):
    with db.reader() as s:
        return s.scalars(sa.select(Group).where(Group.id != source_id,
                                                Group.deleted.is_(False))).all()


def test_from_a_group_snapshot(vclient, seeded, rpc, group, pool):  # noqa: F811
    members, gs_id = _snapshotted(vclient, seeded, group)
    rpc.volume.calls.clear()
    resp = _from(vclient, group_snapshot_id=gs_id)
    assert resp.status_code == 202
    new_id = resp.json['group']['id']
    new = db_groups.get(seeded, group_id=new_id)
    assert (new.status, new.host, new.group_snapshot_id, new.group_type_id) == (
        'creating', POOL, gs_id, group.group_type_id)
    made = [v for v in volume_rows(seeded) if v.group_id == new_id]
    snaps = {s.id: s for s in db_group_snapshots.members(seeded, group_snapshot_id=gs_id)}
    assert sorted(snaps[v.snapshot_id].volume_id for v in made) == sorted(m.id for m in members)
    assert {(v.status, v.host) for v in made} == {('creating', POOL)}
    assert db_pools.claims(seeded)[POOL][0] == 5
    assert usages(seeded)['groups'] == (2, 0)
    assert rpc.volume.calls == [('create_group_from_src', {
        'group_id': new_id, 'host': POOL, 'cluster_name': None})]


def test_from_a_source_group(vclient, seeded, rpc, group, pool):  # noqa: F811
    member = _member(seeded, group, size=4)
    resp = _from(vclient, source_group_id=group.id)
    assert resp.status_code == 202
    made = [v for v in volume_rows(seeded) if v.group_id == resp.json['group']['id']]
    assert [(v.source_volid, v.size) for v in made] == [(member.id, 4)]
    assert db_pools.claims(seeded)[POOL][0] == 4


@pytest.mark.parametrize('case, status', [
    ('both sources', 400), ('no source', 400), ('unknown snapshot', 404),
    ('unknown group', 404), ('snapshot not available', 400), ('pool full', 400),
    ('over quota', 413)])
def test_refusals_write_nothing(vclient, seeded, rpc, group, pool, case, status):  # noqa: F811
    members, gs_id = _snapshotted(vclient, seeded, group)
    rpc.volume.calls.clear()
    source = {'group_snapshot_id': gs_id}
    if case == 'both sources':
        source['source_group_id'] = group.id
    elif case == 'no source':
        source = {}
    elif case == 'unknown snapshot':
        source = {'group_snapshot_id': str(uuid.uuid4())}
    elif case == 'unknown group':
        source = {'source_group_id': str(uuid.uuid4())}
    elif case == 'snapshot not available':
        with seeded.writer() as s:
            s.execute(sa.update(GroupSnapshot).values(status='error'))
    elif case == 'pool full':
        with seeded.writer() as s:
            s.execute(sa.update(Pool).values(capacity_limit_gb=4))
    else:
        vclient.simulate_put('/v3/os-quota-sets/admin', headers=admin(),
                             json={'quota_set': {'groups': 1}})
    before = usages(seeded)
    resp = _from(vclient, **source)
    assert resp.status_code == status
    if case == 'pool full':
        assert resp.json['badRequest']['message'].startswith('Invalid Group: No valid host')
    assert _new_group(seeded, group.id) == []
    assert len(volume_rows(seeded)) == len(members)
    assert usages(seeded) == before
    assert db_pools.claims(seeded)[POOL][0] == 0
    assert rpc.volume.calls == []


def test_a_group_snapshot_being_used_as_a_source_cannot_be_deleted(vclient, seeded, rpc,
                                                                   group, pool):  # noqa: F811
    _members, gs_id = _snapshotted(vclient, seeded, group)
    assert _from(vclient, group_snapshot_id=gs_id).status_code == 202
    resp = vclient.simulate_delete(f'/v3/group_snapshots/{gs_id}', headers=admin('3.14'))
    assert resp.status_code == 400
    assert resp.json['badRequest']['message'] == (
        'Invalid GroupSnapshot: GroupSnapshot status must be available or error, and no Group '
        'can be currently using it as source for its creation.')
