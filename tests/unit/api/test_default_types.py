"""/default-types (3.62, admin): set by name or id, show, list, unset."""

import pytest

from cinderlike.db import default_types as db_default_types
from cinderlike.db import volume_types as db_types
from tests.unit.api.type_fixtures import OTHER, PROJECT, admin, seed_default, user

DEFAULTS = '/v3/default-types'


@pytest.fixture
def gold(db):
    seed_default(db)
    return db_types.create(db, name='gold')


def _set(client, project, volume_type, headers=None):
    return client.simulate_put(f'{DEFAULTS}/{project}', headers=headers or admin('3.62'),
                               json={'default_type': {'volume_type': volume_type}})


def test_set_show_list_unset(client, db, gold):
    resp = _set(client, PROJECT, 'gold')
    assert resp.status_code == 200
    assert resp.json == {'default_type': {'project_id': PROJECT, 'volume_type_id': gold.id}}
    assert _set(client, OTHER, gold.id).status_code == 200
    shown = client.simulate_get(f'{DEFAULTS}/{PROJECT}', headers=admin('3.62'))
    assert shown.json == resp.json
    listed = client.simulate_get(DEFAULTS, headers=admin('3.62')).json['default_types']
    assert sorted(d['project_id'] for d in listed) == sorted([PROJECT, OTHER])
    resp = client.simulate_delete(f'{DEFAULTS}/{PROJECT}', headers=admin('3.62'))
    assert resp.status_code == 204
    assert db_default_types.get(db, project_id=PROJECT) is None


def test_set_replaces_the_default(client, db, gold):
    _set(client, PROJECT, 'gold')
    _set(client, PROJECT, '__DEFAULT__')
    assert db_types.get_default_for_project(
        db, project_id=PROJECT, conf_default_name='__DEFAULT__').name == '__DEFAULT__'


def test_project_default_wins_over_the_option(db, gold):
    db_default_types.set_default(db, project_id=PROJECT, type_id=gold.id)
    assert db_types.get_default_for_project(
        db, project_id=PROJECT, conf_default_name='__DEFAULT__').id == gold.id
    assert db_types.get_default_for_project(
        db, project_id=OTHER, conf_default_name='__DEFAULT__').name == '__DEFAULT__'


def test_set_unknown_type_is_400(client, db, gold):
    resp = _set(client, PROJECT, 'platinum')
    assert resp.json == {'badRequest': {
        'code': 400, 'message': 'Volume type with name platinum could not be found.'}}
    assert db_default_types.get(db, project_id=PROJECT) is None


@pytest.mark.parametrize('body', [{}, {'default_type': {}},
                                  {'default_type': {'volume_type': ''}},
                                  {'default_type': {'volume_type': 'gold', 'x': 1}}])
def test_set_bad_body_is_400(client, db, gold, body):
    resp = client.simulate_put(f'{DEFAULTS}/{PROJECT}', headers=admin('3.62'), json=body)
    assert resp.status_code == 400
    assert db_default_types.get(db, project_id=PROJECT) is None


def test_show_missing_is_404(client, db):
    resp = client.simulate_get(f'{DEFAULTS}/{PROJECT}', headers=admin('3.62'))
    assert resp.json == {'itemNotFound': {
        'code': 404, 'message': f'Default type for project {PROJECT} not found.'}}


def test_below_3_62_does_not_exist(client, db, gold):
    assert client.simulate_get(DEFAULTS, headers=admin('3.61')).status_code == 404
    assert _set(client, PROJECT, 'gold', headers=admin('3.61')).status_code == 404
    assert db_default_types.get(db, project_id=PROJECT) is None


def test_non_admin_is_refused(keystone_client, db, gold):
    resp = keystone_client.simulate_get(DEFAULTS, headers=user(version='3.62'))
    assert resp.json == {'forbidden': {
        'code': 403, 'message': 'You are not authorized to perform this operation.'}}
    resp = _set(keystone_client, PROJECT, 'gold', headers=user(version='3.62'))
    assert resp.status_code == 403
    assert db_default_types.get(db, project_id=PROJECT) is None
