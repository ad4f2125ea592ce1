"""/group_types (3.11): create, list, show (private types, `default`), update and delete, and
their group specs, with Cinder's answers to bad input (nothing written)."""

import uuid

import pytest

from cinderlike.db import group_types as db_group_types
from cinderlike.db.models import Group
from tests.unit.api.type_fixtures import OTHER, PROJECT, admin, user

TYPES = '/v3/group_types'
V = '3.11'


def _create(client, body, headers=None):
    return client.simulate_post(TYPES, headers=headers or admin(V), json=body)


def _names(db):
    return sorted(r.name for r in db_group_types.get_all(db, project_id=None, is_public=None))


@pytest.fixture
def gold(db):
    return db_group_types.create(db, name='gold', description='fast',
                                 group_specs={'consistent_group_snapshot_enabled': '<is> True'})


def test_create_answers_202_with_the_type_and_its_specs(client, db):
    resp = _create(client, {'group_type': {'name': 'g1', 'description': 'd', 'is_public': 'false',
                                           'group_specs': {'k': 'v'}}})
    assert resp.status_code == 202
    shown = resp.json['group_type']
    assert shown == {'id': shown['id'], 'name': 'g1', 'description': 'd', 'is_public': False,
                     'group_specs': {'k': 'v'}}
    assert db_group_types.get(db, type_id=shown['id']).group_specs == {'k': 'v'}


def test_before_3_11_group_types_are_not_found(client, gold):
    assert client.simulate_get(TYPES, headers=admin('3.10')).status_code == 404
    assert _create(client, {'group_type': {'name': 'x'}}, admin('3.10')).status_code == 404


def test_duplicate_name_is_409_and_writes_nothing(client, db, gold):
    resp = _create(client, {'group_type': {'name': 'gold'}})
    assert resp.status_code == 409
    assert resp.json == {'conflictingRequest': {
        'code': 409, 'message': 'Group Type gold already exists.'}}
    assert _names(db) == ['gold']


@pytest.mark.parametrize('wanted', [
    {}, {'name': ''}, {'name': '   '}, {'name': 'x' * 256}, {'name': 'a', 'is_public': 'maybe'},
    {'name': 'a', 'group_specs': {'bad*key': 'v'}}, {'name': 'a', 'group_specs': {'k': 1}},
    {'name': 'a', 'group_specs': {'k': 'v' * 256}}, {'name': 'a', 'unknown': 1},
    {'name': 'a', 'description': 'line\nbreak'},
])
def test_create_bad_input_is_400_and_writes_nothing(client, db, gold, wanted):
    resp = _create(client, {'group_type': wanted})
    assert resp.status_code == 400
    assert resp.json['badRequest']['code'] == 400
    assert _names(db) == ['gold']


def test_create_by_a_member_is_403_and_writes_nothing(keystone_client, db):
    resp = keystone_client.simulate_post(TYPES, headers=user(version=V),
                                         json={'group_type': {'name': 'x'}})
    assert resp.status_code == 403
    assert resp.json['forbidden']['message'] == (
        'Policy doesn\'t allow group:group_types:create to be performed.')
    assert _names(db) == []


def test_members_list_public_and_shared_types_without_specs(keystone_client, db, gold):
    private = db_group_types.create(db, name='private', is_public=False)
    shared = db_group_types.create(db, name='shared', is_public=False, projects=[PROJECT])
    resp = keystone_client.simulate_get(TYPES, headers=user(version=V))
    assert resp.status_code == 200
    assert sorted(t['name'] for t in resp.json['group_types']) == ['gold', 'shared']
    assert all('group_specs' not in t for t in resp.json['group_types'])
    assert keystone_client.simulate_get(f'{TYPES}/{shared.id}',
                                        headers=user(version=V)).status_code == 200
    hidden = keystone_client.simulate_get(f'{TYPES}/{private.id}', headers=user(version=V))
    assert hidden.status_code == 404
    assert hidden.json['itemNotFound']['message'] == (
        f'Group type {private.id} could not be found.')
    other = keystone_client.simulate_get(f'{TYPES}/{shared.id}',
                                         headers=user(project=OTHER, version=V))
    assert other.status_code == 404


def test_admin_filters_on_is_public_and_pages(client, db, gold):
    private = db_group_types.create(db, name='private', is_public=False)
    listed = client.simulate_get(TYPES, headers=admin(V), params={'is_public': 'false'})
    assert [t['id'] for t in listed.json['group_types']] == [private.id]
    both = client.simulate_get(TYPES, headers=admin(V), params={'is_public': 'none'})
    assert {t['name'] for t in both.json['group_types']} == {'gold', 'private'}
    page = client.simulate_get(TYPES, headers=admin(V),
                               params={'is_public': 'none', 'limit': '1', 'sort': 'name:asc'})
    assert [t['name'] for t in page.json['group_types']] == ['gold']
    assert 'marker=' in page.json['group_type_links'][0]['href']
    rest = client.simulate_get(TYPES, headers=admin(V), params={
        'is_public': 'none', 'sort': 'name:asc', 'marker': page.json['group_types'][0]['id']})
    assert [t['name'] for t in rest.json['group_types']] == ['private']
    bad = client.simulate_get(TYPES, headers=admin(V), params={'is_public': 'maybe'})
    assert bad.status_code == 400
    assert bad.json['badRequest']['message'] == 'Invalid is_public filter [maybe]'


def test_admin_sees_specs_in_show(client, gold):
    resp = client.simulate_get(f'{TYPES}/{gold.id}', headers=admin(V))
    assert resp.json['group_type']['group_specs'] == {
        'consistent_group_snapshot_enabled': '<is> True'}


def test_default_group_type_follows_the_option(client, conf, gold):
    resp = client.simulate_get(f'{TYPES}/default', headers=admin(V))
    assert resp.status_code == 404
    assert resp.json['itemNotFound']['message'] == 'Default group type can not be found.'
    conf.set_override('default_group_type', 'gold')
    assert client.simulate_get(f'{TYPES}/default',
                               headers=admin(V)).json['group_type']['id'] == gold.id
    conf.set_override('default_group_type', 'nonexistent')
    assert client.simulate_get(f'{TYPES}/default', headers=admin(V)).status_code == 404


def test_update_changes_what_is_given(client, db, gold):
    resp = client.simulate_put(f'{TYPES}/{gold.id}', headers=admin(V),
                               json={'group_type': {'name': 'platinum', 'is_public': False}})
    assert resp.status_code == 200
    assert resp.json['group_type'] == {
        'id': gold.id, 'name': 'platinum', 'description': 'fast', 'is_public': False,
        'group_specs': {'consistent_group_snapshot_enabled': '<is> True'}}


@pytest.mark.parametrize('wanted, status, message', [
    ({}, 400, 'Specify group type name, description or a combination thereof.'),
    ({'name': '  '}, 400, 'Group type name can not be empty.'),
    ({'name': 'taken'}, 409, 'Group Type taken already exists.'),
    ({'is_public': 'maybe'}, 400, None),
])
def test_update_refusals_change_nothing(client, db, gold, wanted, status, message):
    db_group_types.create(db, name='taken')
    resp = client.simulate_put(f'{TYPES}/{gold.id}', headers=admin(V),
                               json={'group_type': wanted})
    assert resp.status_code == status
    if message:
        assert next(iter(resp.json.values()))['message'] == message
    assert db_group_types.get(db, type_id=gold.id) == gold


def test_update_unknown_type_is_404(client):
    missing = str(uuid.uuid4())
    resp = client.simulate_put(f'{TYPES}/{missing}', headers=admin(V),
                               json={'group_type': {'name': 'x'}})
    assert resp.status_code == 404
    assert resp.json['itemNotFound']['message'] == f'Group type {missing} could not be found.'


def test_delete_and_in_use(client, db, gold):
    with db.writer() as session:
        session.add(Group(id=str(uuid.uuid4()), project_id=PROJECT, group_type_id=gold.id,
                          status='available'))
    resp = client.simulate_delete(f'{TYPES}/{gold.id}', headers=admin(V))
    assert resp.status_code == 400
    assert resp.json['badRequest']['message'] == (
        f'Target group type is still in use. Group Type {gold.id} deletion is not allowed '
        'with groups present with the type.')
    assert _names(db) == ['gold']
    spare = db_group_types.create(db, name='spare')
    assert client.simulate_delete(f'{TYPES}/{spare.id}', headers=admin(V)).status_code == 202
    assert _names(db) == ['gold']
    assert client.simulate_delete(f'{TYPES}/{spare.id}', headers=admin(V)).status_code == 404


def test_group_specs_crud(client, db, gold):
    specs = f'{TYPES}/{gold.id}/group_specs'
    resp = client.simulate_post(specs, headers=admin(V), json={'group_specs': {'a': '1'}})
    assert (resp.status_code, resp.json) == (202, {'group_specs': {'a': '1'}})
    assert client.simulate_get(specs, headers=admin(V)).json == {'group_specs': {
        'consistent_group_snapshot_enabled': '<is> True', 'a': '1'}}
    assert client.simulate_get(f'{specs}/a', headers=admin(V)).json == {'a': '1'}
    resp = client.simulate_put(f'{specs}/a', headers=admin(V), json={'a': '2'})
    assert (resp.status_code, resp.json) == (200, {'a': '2'})
    assert client.simulate_delete(f'{specs}/a', headers=admin(V)).status_code == 202
    assert db_group_types.get(db, type_id=gold.id).group_specs == {
        'consistent_group_snapshot_enabled': '<is> True'}
    missing = client.simulate_get(f'{specs}/a', headers=admin(V))
    assert missing.status_code == 404
    assert missing.json['itemNotFound']['message'] == (
        f'Group Type {gold.id} has no extra spec with key a.')
    gone = client.simulate_delete(f'{specs}/a', headers=admin(V))
    assert gone.status_code == 404
    assert gone.json['itemNotFound']['message'] == (
        f'Group Type {gold.id} has no specs with key a.')


@pytest.mark.parametrize('method, suffix, body, status, message', [
    ('put', '/a', {'b': '1'}, 400, 'Request body and URI mismatch'),
    ('put', '/a', {'a': '1', 'b': '2'}, 400, None),
    ('post', '', {'group_specs': {'bad key': 'v'}}, 400, None),
    ('post', '', {'specs': {}}, 400, None),
])
def test_group_specs_bad_input_writes_nothing(client, db, gold, method, suffix, body, status,
                                              message):
    resp = getattr(client, f'simulate_{method}')(f'{TYPES}/{gold.id}/group_specs{suffix}',
                                                 headers=admin(V), json=body)
    assert resp.status_code == status
    if message:
        assert resp.json['badRequest']['message'] == message
    assert db_group_types.get(db, type_id=gold.id).group_specs == gold.group_specs


def test_group_specs_of_an_unknown_type_are_404(client):
    missing = str(uuid.uuid4())
    resp = client.simulate_post(f'{TYPES}/{missing}/group_specs', headers=admin(V),
                                json={'group_specs': {'a': '1'}})
    assert resp.status_code == 404
    assert resp.json['itemNotFound']['message'] == f'Group type {missing} could not be found.'


def test_group_specs_are_admin_only(keystone_client, gold):
    resp = keystone_client.simulate_get(f'{TYPES}/{gold.id}/group_specs',
                                        headers=user(version=V))
    assert resp.status_code == 403
