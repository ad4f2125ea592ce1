"""Private type access: addProjectAccess/removeProjectAccess actions and the access list."""

import pytest

from cinderlike.db import type_access as db_type_access
from cinderlike.db import volume_types as db_types
from tests.unit.api.type_fixtures import ADMIN, OTHER, PROJECT, seed_default, user

ACTION = '/v3/types/{}/action'
ACCESS = '/v3/types/{}/os-volume-type-access'


@pytest.fixture
def private(db):
    seed_default(db)
    return db_types.create(db, name='private', is_public=False)


def _act(client, type_id, body, headers=ADMIN):
    return client.simulate_post(ACTION.format(type_id), headers=headers, json=body)


def test_grant_list_and_revoke(client, keystone_client, db, private):
    assert _act(client, private.id, {'addProjectAccess': {'project': PROJECT}}).status_code == 202
    assert keystone_client.simulate_get(f'/v3/types/{private.id}',
                                        headers=user()).status_code == 200
    resp = client.simulate_get(ACCESS.format(private.id), headers=ADMIN)
    assert resp.json == {'volume_type_access': [{'volume_type_id': private.id,
                                                 'project_id': PROJECT}]}
    again = _act(client, private.id, {'addProjectAccess': {'project': PROJECT}})
    assert again.json == {'conflictingRequest': {'code': 409, 'message': (
        f'Volume type access for {private.id} / {PROJECT} combination already exists.')}}
    assert _act(client, private.id,
                {'removeProjectAccess': {'project': PROJECT}}).status_code == 202
    assert db_type_access.get_projects(db, type_id=private.id) == []
    assert keystone_client.simulate_get(f'/v3/types/{private.id}',
                                        headers=user()).status_code == 404
    # A revoked grant can be given again (the unique key includes `deleted`).
    assert _act(client, private.id, {'addProjectAccess': {'project': PROJECT}}).status_code == 202


def test_revoke_without_grant_is_404(client, private):
    resp = _act(client, private.id, {'removeProjectAccess': {'project': OTHER}})
    assert resp.json == {'itemNotFound': {'code': 404, 'message': (
        f'Volume type access not found for {private.id} / {OTHER} combination.')}}


@pytest.mark.parametrize('body, message', [
    ({'addProjectAccess': {'project': ''}}, None),
    ({'addProjectAccess': {'project': 'p' * 256}}, None),
    ({'addProjectAccess': {}}, None),
    ({'addProjectAccess': {'project': PROJECT, 'x': 1}}, None),
    ({'frobnicate': {}}, ('There is no such action: frobnicate. Verify the request body and '
      'Content-Type header and try again.')),
    ({'addProjectAccess': {'project': PROJECT}, 'removeProjectAccess': {}},
     'Malformed request body'),
    ({}, 'Malformed request body'),
])
def test_bad_actions_are_400_and_grant_nothing(client, db, private, body, message):
    resp = _act(client, private.id, body)
    assert resp.status_code == 400
    if message:
        assert resp.json['badRequest']['message'] == message
    assert db_type_access.get_projects(db, type_id=private.id) == []


def test_public_types_have_no_access_list(client, db, private):
    public = db_types.get_by_name(db, name='__DEFAULT__')
    resp = _act(client, public.id, {'addProjectAccess': {'project': PROJECT}})
    assert resp.json == {'badRequest': {'code': 400, 'message': (
        'Invalid volume type: Type access modification is not applicable to public volume '
        'type.')}}
    resp = client.simulate_get(ACCESS.format(public.id), headers=ADMIN)
    assert resp.json == {'itemNotFound': {
        'code': 404, 'message': 'Access list not available for public volume types.'}}


def test_unknown_type_is_404(client, db):
    resp = _act(client, 'nope', {'addProjectAccess': {'project': PROJECT}})
    assert resp.json['itemNotFound']['message'] == 'Volume type nope could not be found.'


def test_non_admin_cannot_grant_or_list(keystone_client, db, private):
    resp = _act(keystone_client, private.id, {'addProjectAccess': {'project': PROJECT}},
                headers=user())
    assert resp.status_code == 403
    assert keystone_client.simulate_get(ACCESS.format(private.id),
                                        headers=user()).status_code == 403
    assert db_type_access.get_projects(db, type_id=private.id) == []
