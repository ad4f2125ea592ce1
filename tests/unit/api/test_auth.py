"""noauth and keystone identity, the URL's project check, and policy refusals."""

import pytest

SERVICES = '/v3/os-services'


# --- noauth ---------------------------------------------------------------------

def test_noauth_without_token_hands_out_one(client):
    resp = client.simulate_get(SERVICES, headers={'X-Auth-User': 'alice',
                                                  'X-Auth-Project-Id': 'p1'})
    assert resp.status_code == 204
    assert resp.headers['X-Auth-Token'] == 'alice:p1'
    assert resp.headers['X-Server-Management-Url'].endswith(SERVICES)
    assert resp.text == ''


def test_noauth_token_defaults_to_admin_admin(client):
    resp = client.simulate_get('/v3/')
    assert resp.status_code == 204
    assert resp.headers['X-Auth-Token'] == 'admin:admin'


def test_noauth_token_user_and_project(client):
    headers = {'X-Auth-Token': 'alice:p1'}
    assert client.simulate_get('/v3/p1/os-services', headers=headers).status_code == 200
    # Every noauth caller is an admin: the admin-only os-services answers.
    assert client.simulate_get(SERVICES, headers=headers).status_code == 200


def test_noauth_token_without_project_uses_the_user(client):
    headers = {'X-Auth-Token': 'alice'}
    assert client.simulate_get('/v3/alice/os-services', headers=headers).status_code == 200
    assert client.simulate_get('/v3/p1/os-services', headers=headers).status_code == 400


def test_project_in_url_must_be_the_tokens(client):
    resp = client.simulate_get('/v3/other/os-services', headers={'X-Auth-Token': 'alice:p1'})
    assert resp.status_code == 400
    assert resp.json == {'badRequest': {'code': 400, 'message': 'Malformed request url'}}


# --- keystone (auth_token's headers trusted) -----------------------------------

def _identity(roles, project='p1', user='u1'):
    return {'X-User-Id': user, 'X-Project-Id': project, 'X-Roles': roles}


def test_keystone_without_user_is_401(keystone_client):
    resp = keystone_client.simulate_get(SERVICES, headers={'X-Project-Id': 'p1'})
    assert resp.status_code == 401
    assert list(resp.json) == ['unauthorized']
    assert resp.json['unauthorized']['code'] == 401


@pytest.mark.parametrize('roles', ['member', 'reader,member'])
def test_keystone_non_admin_is_refused_services(keystone_client, roles):
    resp = keystone_client.simulate_get(SERVICES, headers=_identity(roles))
    assert resp.status_code == 403
    assert resp.json == {'forbidden': {
        'code': 403,
        'message': "Policy doesn't allow volume_extension:services:index to be performed."}}


def test_keystone_non_admin_cannot_disable(keystone_client):
    resp = keystone_client.simulate_put('/v3/p1/os-services/disable', headers=_identity('member'),
                                        json={'host': 'h', 'binary': 'cinder-volume'})
    assert resp.status_code == 403
    assert 'volume_extension:services:update' in resp.json['forbidden']['message']


def test_keystone_admin_lists_services(keystone_client):
    resp = keystone_client.simulate_get('/v3/p1/os-services', headers=_identity('admin,member'))
    assert resp.status_code == 200


def test_keystone_non_admin_lists_availability_zones(keystone_client):
    resp = keystone_client.simulate_get('/v3/p1/os-availability-zone',
                                        headers=_identity('reader'))
    assert resp.status_code == 200


def test_keystone_project_mismatch_is_400(keystone_client):
    resp = keystone_client.simulate_get('/v3/p2/os-availability-zone',
                                        headers=_identity('member'))
    assert resp.status_code == 400


def test_keystone_bad_service_catalog_is_500(keystone_client):
    resp = keystone_client.simulate_get(SERVICES, headers={**_identity('admin'),
                                                           'X-Service-Catalog': '{'})
    assert resp.status_code == 500
    assert resp.json == {'computeFault': {'code': 500,
                                          'message': 'Invalid service catalog json.'}}
