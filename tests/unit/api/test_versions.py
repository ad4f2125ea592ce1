"""GET / and GET /v3/: Cinder's version document."""

from tests.unit.api.conftest import ADMIN

EXPECTED = {
    'id': 'v3.0',
    'status': 'CURRENT',
    'version': '3.71',
    'min_version': '3.0',
    'updated': '2023-08-31T00:00:00Z',
    'links': [
        {'rel': 'describedby', 'type': 'text/html', 'href': 'https://docs.openstack.org/'},
        {'rel': 'self', 'href': 'http://cinder.example:8776/v3/'},
    ],
    'media-types': [{'base': 'application/json',
                     'type': 'application/vnd.openstack.volume+json;version=3'}],
}


def test_root_lists_versions_with_300(client):
    resp = client.simulate_get('/', host='cinder.example', port=8776)
    assert resp.status_code == 300
    assert resp.json == {'versions': [EXPECTED]}
    # The version list is outside /v3: no auth and no microversion headers.
    assert 'OpenStack-API-Version' not in resp.headers


def test_v3_document_with_200_and_version_headers(client):
    resp = client.simulate_get('/v3/', host='cinder.example', port=8776, headers=ADMIN)
    assert resp.status_code == 200
    assert resp.json == {'versions': [EXPECTED]}
    assert resp.headers['OpenStack-API-Version'] == 'volume 3.0'
    # /v3 is Cinder's redirect to it (test_path_rules).
    moved = client.simulate_get('/v3', host='cinder.example', port=8776, headers=ADMIN)
    assert (moved.status_code, moved.headers['Location']) == (
        302, 'http://cinder.example:8776/v3/')


def test_public_endpoint_replaces_the_request_url(conf, client):
    conf.set_override('public_endpoint', 'https://volume.example.org/')
    resp = client.simulate_get('/')
    assert resp.json['versions'][0]['links'][1] == {
        'rel': 'self', 'href': 'https://volume.example.org/v3/'}
