"""/groups (3.13): create (quota, scheduler cast), list/detail/show per microversion, the
delete action with and without delete-volumes, reset_status; refusals write nothing."""

import uuid

import pytest
import sqlalchemy as sa

from cinderlike.db import group_types as db_group_types
from cinderlike.db import groups as db_groups
from cinderlike.db import type_extra_specs as db_type_extra_specs
from cinderlike.db import volume_types as db_types
from cinderlike.db import volumes as db_volumes
from cinderlike.db.models import Group, GroupSnapshot, Snapshot
from tests.unit.api.type_fixtures import OTHER, PROJECT, admin, user
from tests.unit.api.volume_fixtures import add_volume, usages

GROUPS = '/v3/groups'
V = '3.13'


@pytest.fixture
def gtype(seeded):
    return db_group_types.create(seeded, name='gt')


@pytest.fixture
def vtypes(seeded):
    return [db_types.create(seeded, name=name) for name in ('fast', 'slow')]


def _body(**group):
    return {'group': dict({'group_type': 'gt', 'volume_types': ['fast', 'slow']}, **group)}


def _groups(db) -> list[Group]:
    with db.reader() as s:
        return list(s.scalars(sa.select(Group).where(Group.deleted.is_(False))))


def _placed(db, **values) -> Group:
    group = _groups(db)[0]
    with db.writer() as s:
        s.execute(sa.update(Group).where(Group.id == group.id).values(**values))
    return db_groups.get(db, group_id=group.id)


def test_create_inserts_creating_commits_quota_and_casts(vclient, seeded, rpc, gtype, vtypes):
    resp = vclient.simulate_post(GROUPS, headers=admin(V), json=_body(name=' g1 '))
    assert resp.status_code == 202
    group_id = resp.json['group']['id']
    assert resp.json == {'group': {'id': group_id, 'name': 'g1'}}
    row = db_groups.get(seeded, group_id=group_id)
    assert (row.status, row.group_type_id, row.availability_zone, row.host) == (
        'creating', gtype.id, 'nova', None)
    assert db_groups.volume_type_ids(seeded, group_ids=[group_id])[group_id] == [
        t.id for t in vtypes]
    assert usages(seeded)['groups'] == (1, 0)
    (method, kwargs), = rpc.scheduler.calls
    assert method == 'create_group' and kwargs['group_id'] == group_id
    spec = kwargs['request_spec']
    assert spec['group_type']['id'] == gtype.id
    assert [t['name'] for t in spec['volume_types']] == ['fast', 'slow']


@pytest.mark.parametrize('body, status, message', [
    (_body(group_type='nope'), 404, 'Group type with name nope could not be found.'),
    (_body(volume_types=['fast', 'nope']), 404,
     'Volume type with name nope could not be found.'),
    (_body(availability_zone='mars'), 400,
     "Invalid input received: Availability zone 'mars' is invalid."),
    (_body(volume_types=[]), 400, None),
    (_body(volume_types=['fast', 'fast']), 400, None),
    ({'group': {'group_type': 'gt'}}, 400, None),
    (_body(unknown=1), 400, None),
    (_body(name='x' * 256), 400, None),
])
def test_create_refusals_write_nothing_and_hold_no_quota(vclient, seeded, rpc, gtype, vtypes,
                                                         body, status, message):
    resp = vclient.simulate_post(GROUPS, headers=admin(V), json=body)
    assert resp.status_code == status
    if message:
        assert next(iter(resp.json.values()))['message'] == message
    assert _groups(seeded) == []
    assert usages(seeded).get('groups', (0, 0)) == (0, 0)
    assert rpc.scheduler.calls == []


def test_create_over_quota_is_413(vclient, seeded, rpc, gtype, vtypes):
    vclient.simulate_put('/v3/os-quota-sets/admin', headers=admin(),
                         json={'quota_set': {'groups': 0}})
    resp = vclient.simulate_post(GROUPS, headers=admin(V), json=_body())
    assert resp.status_code == 413
    assert resp.json['overLimit']['message'] == (
        'GroupLimitExceeded: Maximum number of groups allowed (0) exceeded')
    assert _groups(seeded) == []


def test_the_cgsnapshot_type_is_reserved(vclient, seeded, rpc, vtypes):
    reserved = db_group_types.create(seeded, name='default_cgsnapshot_type')
    resp = vclient.simulate_post(GROUPS, headers=admin(V),
                                 json=_body(group_type='default_cgsnapshot_type'))
    assert resp.status_code == 400
    assert resp.json['badRequest']['message'] == (
        f'Group_type {reserved.id} is reserved for migrating CGs to groups. Migrated group can '
        'only be operated by CG APIs.')
    assert _groups(seeded) == []


def test_before_3_13_groups_are_not_found(vclient, gtype, vtypes):
    assert vclient.simulate_get(GROUPS, headers=admin('3.12')).status_code == 404
    assert vclient.simulate_post(GROUPS, headers=admin('3.12'),
                                 json=_body()).status_code == 404


def test_show_and_detail_follow_the_microversion(vclient, seeded, gtype, vtypes):
    group_id = vclient.simulate_post(GROUPS, headers=admin(V), json=_body()).json['group']['id']
    volume = add_volume(seeded, volume_type_id=vtypes[0].id, group_id=group_id,
                        type_name='fast')
    shown = vclient.simulate_get(f'{GROUPS}/{group_id}', headers=admin(V)).json['group']
    assert set(shown) == {'id', 'status', 'availability_zone', 'created_at', 'name',
                          'description', 'group_type', 'volume_types'}
    assert shown['volume_types'] == [t.id for t in vtypes]
    newest = vclient.simulate_get(f'{GROUPS}/{group_id}', headers=admin('3.58'),
                                  params={'list_volume': 'true'}).json['group']
    assert newest['volumes'] == [volume.id]
    assert (newest['replication_status'], newest['project_id']) == ('disabled', 'admin')
    assert 'group_snapshot_id' in newest and 'source_group_id' in newest
    listed = vclient.simulate_get(GROUPS, headers=admin(V)).json
    assert listed == {'groups': [{'id': group_id, 'name': None}]}
    detail = vclient.simulate_get(f'{GROUPS}/detail', headers=admin(V)).json['groups']
    assert [g['id'] for g in detail] == [group_id]


def test_members_see_only_their_groups_and_filter_by_name(kclient, seeded, gtype, vtypes):
    kclient.simulate_post(GROUPS, headers=user(project=OTHER, version=V),
                          json=_body(name='admins'))
    mine = kclient.simulate_post(GROUPS, headers=user(version=V), json=_body(name='mine'))
    assert mine.status_code == 202
    listed = kclient.simulate_get(f'{GROUPS}/detail', headers=user(version='3.34'),
                                  params={'name~': 'mi'}).json['groups']
    assert [g['name'] for g in listed] == ['mine']
    assert 'project_id' not in listed[0]
    bad = kclient.simulate_get(GROUPS, headers=user(version='3.34'), params={'status': 'x'})
    assert bad.status_code == 400
    assert bad.json['badRequest']['message'] == (
        'Invalid filters status are found in query options.')
    other = [g for g in _groups(seeded) if g.name == 'admins'][0]
    hidden = kclient.simulate_get(f'{GROUPS}/{other.id}', headers=user(version=V))
    assert hidden.status_code == 404
    assert hidden.json['itemNotFound']['message'] == f'Group {other.id} could not be found.'
    assert usages(seeded, PROJECT)['groups'] == (1, 0)


def _delete(client, group_id, delete_volumes=None, headers=None):
    body = {'delete': {} if delete_volumes is None else {'delete-volumes': delete_volumes}}
    return client.simulate_post(f'{GROUPS}/{group_id}/action', headers=headers or admin(V),
                                json=body)


def test_delete_of_an_unplaced_group_destroys_it_and_gives_the_quota_back(vclient, seeded,
                                                                          rpc, gtype, vtypes):
    group_id = vclient.simulate_post(GROUPS, headers=admin(V), json=_body()).json['group']['id']
    assert _delete(vclient, group_id).status_code == 202
    assert _groups(seeded) == []
    assert usages(seeded)['groups'] == (0, 0)
    assert [m for m, _ in rpc.volume.calls] == []


def test_delete_casts_to_the_groups_backend(vclient, seeded, rpc, gtype, vtypes):
    vclient.simulate_post(GROUPS, headers=admin(V), json=_body())
    group = _placed(seeded, host='node@b1#b1', status='available')
    assert _delete(vclient, group.id, False).status_code == 202
    assert db_groups.get(seeded, group_id=group.id).status == 'deleting'
    assert rpc.volume.calls == [('delete_group', {'group_id': group.id, 'host': 'node@b1#b1',
                                                  'cluster_name': None})]


def test_delete_refusals_change_nothing(vclient, seeded, rpc, gtype, vtypes):
    vclient.simulate_post(GROUPS, headers=admin(V), json=_body())
    group = _placed(seeded, host='node@b1#b1', status='available')
    volume = add_volume(seeded, type_name='fast', group_id=group.id)
    resp = _delete(vclient, group.id)
    assert resp.status_code == 400
    assert resp.json['badRequest']['message'] == (
        f'Invalid Group: Cannot delete group {group.id}. Group must not have attached volumes, '
        'volumes with snapshots, or dependent group snapshots, and it cannot be the source '
        'for an ongoing group or group snapshot creation.')
    with seeded.writer() as s:
        s.add(Snapshot(id=str(uuid.uuid4()), volume_id=volume.id, volume_type_id=vtypes[0].id,
                       status='available', project_id='admin'))
    assert _delete(vclient, group.id, True).status_code == 400
    with seeded.writer() as s:
        s.execute(sa.update(Snapshot).values(deleted=True))
        s.add(GroupSnapshot(id=str(uuid.uuid4()), group_id=group.id, status='available'))
    assert _delete(vclient, group.id, True).status_code == 400
    assert db_groups.get(seeded, group_id=group.id).status == 'available'
    assert db_volumes.get(seeded, volume_id=volume.id).status == 'available'
    assert rpc.volume.calls == []
    bad = _delete(vclient, group.id, 'maybe')
    assert bad.status_code == 400


def test_delete_volumes_moves_members_to_deleting(vclient, seeded, rpc, gtype, vtypes):
    vclient.simulate_post(GROUPS, headers=admin(V), json=_body())
    group = _placed(seeded, host='node@b1#b1', status='error')
    volume = add_volume(seeded, type_name='fast', group_id=group.id)
    assert _delete(vclient, group.id, True).status_code == 202
    assert db_volumes.get(seeded, volume_id=volume.id).status == 'deleting'
    assert db_groups.get(seeded, group_id=group.id).status == 'deleting'


def test_delete_by_a_reader_is_403(kclient, seeded, gtype, vtypes):
    mine = kclient.simulate_post(GROUPS, headers=user(version=V), json=_body())
    resp = _delete(kclient, mine.json['group']['id'], headers=user(roles='reader', version=V))
    assert resp.status_code == 403
    assert len(_groups(seeded)) == 1


def test_reset_status_is_admin_and_3_20(vclient, seeded, gtype, vtypes):
    group_id = vclient.simulate_post(GROUPS, headers=admin(V), json=_body()).json['group']['id']
    body = {'reset_status': {'status': 'Available'}}
    url = f'{GROUPS}/{group_id}/action'
    assert vclient.simulate_post(url, headers=admin('3.19'), json=body).status_code == 404
    assert vclient.simulate_post(url, headers=admin('3.20'), json=body).status_code == 202
    assert db_groups.get(seeded, group_id=group_id).status == 'available'
    bad = vclient.simulate_post(url, headers=admin('3.20'),
                                json={'reset_status': {'status': 'bogus'}})
    assert bad.status_code == 400
    assert db_groups.get(seeded, group_id=group_id).status == 'available'


def test_reset_status_by_a_member_is_403(kclient, seeded, gtype, vtypes):
    mine = kclient.simulate_post(GROUPS, headers=user(version=V), json=_body())
    url = f"{GROUPS}/{mine.json['group']['id']}/action"
    denied = kclient.simulate_post(url, headers=user(version='3.20'),
                                   json={'reset_status': {'status': 'available'}})
    assert denied.status_code == 403
    assert _groups(seeded)[0].status == 'creating'


def test_unknown_action_is_400(vclient, seeded, gtype, vtypes):
    group_id = vclient.simulate_post(GROUPS, headers=admin(V), json=_body()).json['group']['id']
    resp = vclient.simulate_post(f'{GROUPS}/{group_id}/action', headers=admin(V),
                                 json={'frobnicate': {}})
    assert resp.status_code == 400


def _member(db, group, *, status='available', type_name='fast', **values):
    return add_volume(db, type_name=type_name, status=status, host='node@b1#b1', **values)


def _update(client, group_id, headers=None, **group):
    return client.simulate_put(f'{GROUPS}/{group_id}', headers=headers or admin(V),
                               json={'group': group})


def test_update_adds_and_removes_through_the_backend(vclient, seeded, rpc, gtype, vtypes):
    vclient.simulate_post(GROUPS, headers=admin(V), json=_body())
    group = _placed(seeded, host='node@b1#b1', status='available')
    joining, member = _member(seeded, group), _member(seeded, group)
    with seeded.writer() as s:
        s.execute(sa.text('UPDATE volumes SET group_id = :g WHERE id = :v'),
                  {'g': group.id, 'v': member.id})
    resp = _update(vclient, group.id, name='renamed', add_volumes=f'{joining.id},',
                   remove_volumes=member.id)
    assert resp.status_code == 202
    row = db_groups.get(seeded, group_id=group.id)
    assert (row.status, row.name) == ('updating', 'renamed')
    assert rpc.volume.calls == [('update_group', {
        'group_id': group.id, 'host': 'node@b1#b1', 'cluster_name': None,
        'add_volumes': [joining.id], 'remove_volumes': [member.id]})]


def test_a_rename_alone_needs_no_backend(vclient, seeded, rpc, gtype, vtypes):
    vclient.simulate_post(GROUPS, headers=admin(V), json=_body())
    group = _placed(seeded, host='node@b1#b1', status='error')
    assert _update(vclient, group.id, description='new').status_code == 202
    row = db_groups.get(seeded, group_id=group.id)
    assert (row.status, row.description) == ('error', 'new')
    assert rpc.volume.calls == []


def _add_refusal(db, group, vtypes, case):
    if case == 'missing':
        return str(uuid.uuid4()), 'because volume cannot be found.'
    if case == 'other project':
        return _member(db, group, project='p2').id, 'as they belong to different projects.'
    if case == 'other type':
        volume = _member(db, group, type_name='__DEFAULT__')
        return volume.id, (f'because volume type {volume.volume_type_id} is not supported by '
                           'the group.')
    if case == 'bad status':
        return _member(db, group, status='error').id, (
            "because volume is in an invalid state: error. Valid states are: "
            "('available', 'in-use').")
    if case == 'other backend':
        volume = add_volume(db, type_name='fast', host='node@b9#b9')
        return volume.id, None
    volume = _member(db, group, group_id=str(uuid.uuid4()))
    return volume.id, f'because it is already in group {volume.group_id}.'


@pytest.mark.parametrize('case', ['missing', 'other project', 'other type', 'bad status',
                                  'other backend', 'other group'])
def test_update_refusals_change_nothing(vclient, seeded, rpc, gtype, vtypes, case):
    vclient.simulate_post(GROUPS, headers=admin(V), json=_body())
    group = _placed(seeded, host='node@b1#b1', status='available')
    volume_id, tail = _add_refusal(seeded, group, vtypes, case)
    resp = _update(vclient, group.id, name='x', add_volumes=volume_id)
    assert resp.status_code == 400
    message = resp.json['badRequest']['message']
    assert message == (f'Invalid volume: Cannot add volume {volume_id} to group {group.id} '
                       f'{tail}' if tail else 'Invalid volume: Volume is not local to this node.')
    row = db_groups.get(seeded, group_id=group.id)
    assert (row.status, row.name) == ('available', None)
    assert rpc.volume.calls == []


@pytest.mark.parametrize('body, message', [
    ({'name': None}, 'Cannot update group {id} because no valid name, description, '
                     'add_volumes, or remove_volumes were provided.'),
    ({'remove_volumes': 'nope'}, 'Cannot remove volume nope from group {id} because it is '
                                 'not in the group.'),
    ({'add_volumes': 'a', 'remove_volumes': 'a'},
     "UUIDs ['a'] are in both add and remove volume list."),
])
def test_update_without_a_change_is_400(vclient, seeded, rpc, gtype, vtypes, body, message):
    vclient.simulate_post(GROUPS, headers=admin(V), json=_body())
    group = _placed(seeded, host='node@b1#b1', status='available')
    resp = _update(vclient, group.id, **body)
    assert resp.status_code == 400
    assert message.format(id=group.id) in resp.json['badRequest']['message']
    assert rpc.volume.calls == []


def test_member_changes_need_an_available_group(vclient, seeded, rpc, gtype, vtypes):
    vclient.simulate_post(GROUPS, headers=admin(V), json=_body())
    group = _placed(seeded, host='node@b1#b1', status='error')
    resp = _update(vclient, group.id, add_volumes=_member(seeded, group).id)
    assert resp.status_code == 400
    assert resp.json['badRequest']['message'] == 'Invalid Group: Group status must be available.'
    assert rpc.volume.calls == []


def test_update_schema_needs_one_field(vclient, seeded, gtype, vtypes):
    vclient.simulate_post(GROUPS, headers=admin(V), json=_body())
    group = _groups(seeded)[0]
    assert _update(vclient, group.id).status_code == 400
    assert _update(vclient, group.id, bogus=1).status_code == 400


@pytest.mark.parametrize('action, body', [
    ('enable_replication', {}), ('disable_replication', {}),
    ('failover_replication', {'allow_attached_volume': False}),
    ('list_replication_targets', {})])
def test_replication_actions_are_refused_with_cinders_error(vclient, seeded, rpc, gtype,
                                                            vtypes, action, body):
    vclient.simulate_post(GROUPS, headers=admin(V), json=_body())
    group = _placed(seeded, host='node@b1#b1', status='available')
    url = f'{GROUPS}/{group.id}/action'
    assert vclient.simulate_post(url, headers=admin('3.37'),
                                 json={action: body}).status_code == 404
    resp = vclient.simulate_post(url, headers=admin('3.38'), json={action: body})
    assert resp.status_code == 400
    assert resp.json['badRequest']['message'] == (
        f'Invalid group type: Group {group.id} is not a replication group type.')
    db_group_types.update_specs(seeded, type_id=gtype.id,
                                specs={'group_replication_enabled': '<is> True'})
    resp = vclient.simulate_post(url, headers=admin('3.38'), json={action: body})
    assert resp.json['badRequest']['message'] == (
        f"Invalid volume type: Volume type {vtypes[0].id} does not have 'replication_enabled' "
        "spec key set to '<is> True'.")
    for vtype in vtypes:
        db_type_extra_specs.update(seeded, type_id=vtype.id,
                                   specs={'replication_enabled': '<is> True'})
    resp = vclient.simulate_post(url, headers=admin('3.38'), json={action: body})
    assert resp.status_code == 400
    assert 'which does not replicate' in resp.json['badRequest']['message']
    row = db_groups.get(seeded, group_id=group.id)
    assert (row.status, row.replication_status) == ('available', 'disabled')
    assert rpc.volume.calls == []
