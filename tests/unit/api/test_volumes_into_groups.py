"""POST /volumes with group_id: a volume of one of the group's types, into an `available`
group, is bound to the group's backend; every refusal writes nothing and uses no quota."""

import pytest
import sqlalchemy as sa

from cinderlike.db import group_types as db_group_types
from cinderlike.db import groups as db_groups
from cinderlike.db import volume_types as db_types
from cinderlike.db.models import Group
from tests.unit.api.type_fixtures import user
from tests.unit.api.volume_fixtures import fault, post, usages, volume_rows


@pytest.fixture
def group(db):
    gtype = db_group_types.create(db, name='gt')
    fast = db_types.create(db, name='fast')
    db_types.create(db, name='other')
    with db.writer() as s:
        row = db_groups.create(db, session=s, volume_type_ids=[fast.id], values={
            'project_id': 'admin', 'group_type_id': gtype.id, 'availability_zone': 'nova'})
        s.execute(sa.update(Group).where(Group.id == row.id).values(
            status='available', host='node@b2#b2'))
    return db_groups.get(db, group_id=row.id)


def test_a_volume_created_into_a_group_is_bound_to_its_backend(vclient, db, rpc, group):
    resp = post(vclient, {'volume': {'size': 1, 'volume_type': 'fast', 'group_id': group.id}},
                version='3.13')
    assert resp.status_code == 202
    assert resp.json['volume']['group_id'] == group.id
    row, = volume_rows(db)
    assert row.group_id == group.id
    spec = rpc.scheduler.calls[0][1]['request_spec']
    assert (spec['resource_backend'], spec['group_id']) == ('node@b2', group.id)
    assert db_groups.volume_ids(db, group_ids=[group.id])[group.id] == [row.id]


@pytest.mark.parametrize('volume, status, expected', [
    ({'size': 1}, 'available',
     'Invalid input received: volume_type must be provided when creating a volume in a '
     'group.'),
    ({'size': 1, 'volume_type': 'other'}, 'available',
     'Invalid input received: Invalid volume_type provided: other (requested type must be '
     'supported by this group).'),
    ({'size': 1, 'volume_type': 'fast'}, 'deleting',
     "Invalid Group: Originating group status must be one of 'available' values"),
    ({'size': 1, 'volume_type': 'fast'}, 'creating',
     "Invalid Group: Originating group status must be one of 'available' values"),
])
def test_refusals_write_nothing(vclient, db, rpc, group, volume, status, expected):
    with db.writer() as s:
        s.execute(sa.update(Group).where(Group.id == group.id).values(status=status))
    resp = post(vclient, {'volume': dict(volume, group_id=group.id)}, version='3.13')
    assert fault(resp) == (400, expected)
    assert volume_rows(db) == [] and rpc.scheduler.calls == []
    assert usages(db).get('volumes', (0, 0)) == (0, 0)


def test_another_projects_group_is_not_found(kclient, db, rpc, group):
    resp = post(kclient, {'volume': {'size': 1, 'volume_type': 'fast', 'group_id': group.id}},
                headers=user(version='3.13'))
    assert fault(resp) == (404, f'Group {group.id} could not be found.')
    assert volume_rows(db) == []


def test_a_member_blocks_a_plain_delete_of_the_volume(vclient, db, rpc, group):
    volume_id = post(vclient, {'volume': {'size': 1, 'volume_type': 'fast',
                                          'group_id': group.id}}, version='3.13').json[
        'volume']['id']
    with db.writer() as s:
        s.execute(sa.text("UPDATE volumes SET status='available', host='node@b2#b2'"))
    resp = vclient.simulate_delete(f'/v3/volumes/{volume_id}', headers={
        'X-Auth-Token': 'admin:admin'})
    code, message = fault(resp)
    assert code == 400 and 'group' in message
    assert volume_rows(db)[0].status == 'available'
