"""Paths as Cinder's routes mapper answers them: `/v3` redirects to `/v3/`, and no other path
ending in '/' reaches a resource (404 itemNotFound, nothing written)."""

import pytest

from tests.unit.api.type_fixtures import PROJECT, admin, user
from tests.unit.api.volume_fixtures import add_volume, fault, volume_rows

# One path of every resource family; each is served without the trailing '/'.
SERVED = ['/volumes', '/volumes/detail', '/volumes/summary', '/volumes/{vid}',
          '/volumes/{vid}/action', '/volumes/{vid}/metadata', '/volumes/{vid}/metadata/k',
          '/types', '/types/{tid}', '/types/{tid}/extra_specs', '/types/{tid}/action',
          '/types/{tid}/os-volume-type-access', '/default-types', '/os-services',
          '/os-services/enable', '/clusters', '/clusters/detail', '/os-availability-zone',
          '/os-quota-sets/p1', '/os-quota-sets/p1/defaults', '/os-quota-class-sets/default',
          '/limits', '/messages', '/scheduler-stats/get_pools', '/capabilities/h1',
          '/workers/cleanup', '/extensions', '/extensions/os-hosts']


@pytest.fixture
def ids(db, vclient):
    volume = add_volume(db)
    tid = vclient.simulate_get('/v3/types/default', headers=admin()).json['volume_type']['id']
    return {'vid': volume.id, 'tid': tid}


@pytest.mark.parametrize('method', ['GET', 'PUT', 'POST', 'DELETE'])
@pytest.mark.parametrize('prefix', ['/v3', '/v3/admin'])
def test_a_trailing_slash_is_not_found_on_every_resource(vclient, db, rpc, ids, prefix,
                                                         method):
    before = [(v.id, v.status, v.display_name) for v in volume_rows(db)]
    for path in SERVED:
        url = prefix + path.format(**ids) + '/'
        resp = vclient.simulate_request(method, url, headers=admin('3.71'),
                                        json={'volume': {'name': 'changed'}})
        assert fault(resp) == (404, 'The resource could not be found.'), url
        # Cinder's mapper answers before the controller reads the microversion.
        assert 'OpenStack-API-Version' not in resp.headers
    assert [(v.id, v.status, v.display_name) for v in volume_rows(db)] == before
    assert rpc.scheduler.calls == rpc.volume.calls == []


def test_the_same_paths_without_the_slash_are_served(vclient, ids):
    for path in ('/volumes', '/volumes/detail', '/types', '/os-services', '/extensions'):
        assert vclient.simulate_get('/v3/admin' + path, headers=admin()).status_code == 200


def test_v3_slash_is_the_version_document_and_v3_redirects_to_it(vclient):
    doc = vclient.simulate_get('/v3/', headers=admin())
    assert doc.status_code == 200 and doc.json['versions'][0]['id'] == 'v3.0'
    for method in ('GET', 'HEAD', 'POST', 'DELETE'):
        # A bad microversion is not read: the mapper redirects first.
        moved = vclient.simulate_request(method, '/v3', host='cinder.example', port=8776,
                                         headers=dict(admin(), **{
                                             'OpenStack-API-Version': 'volume 9.9'}))
        assert moved.status_code == 302
        assert moved.headers['Location'] == 'http://cinder.example:8776/v3/'
        assert moved.text == ''
        assert 'OpenStack-API-Version' not in moved.headers


def test_the_redirect_keeps_the_script_path(vclient):
    moved = vclient.simulate_get('/v3', headers=admin(), root_path='/volume',
                                 host='cinder.example')
    assert moved.headers['Location'] == 'http://cinder.example/volume/v3/'


def test_project_only_paths_are_not_found(vclient):
    for path in ('/v3/admin', '/v3/admin/'):
        assert fault(vclient.simulate_get(path, headers=admin())) == (
            404, 'The resource could not be found.')


def test_keystone_authentication_comes_before_the_mapper(kclient):
    # No identity is a 401, with or without the slash, as auth_token answers first.
    for path in ('/v3/volumes/', '/v3', f'/v3/{PROJECT}/volumes/'):
        resp = kclient.simulate_get(path)
        assert resp.status_code == 401 and 'unauthorized' in resp.json
    assert fault(kclient.simulate_get('/v3/volumes/', headers=user())) == (
        404, 'The resource could not be found.')


def test_noauth_comes_before_the_mapper(vclient):
    # No token gets noauth's empty 204 whatever the path.
    assert vclient.simulate_get('/v3/volumes/').status_code == 204
    assert vclient.simulate_get('/v3').status_code == 204


def test_the_root_document_keeps_its_slash(vclient):
    assert vclient.simulate_get('/').status_code == 300
    assert fault(vclient.simulate_get('/nothing/')) == (404, 'The resource could not be found.')
