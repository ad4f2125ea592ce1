"""clusters API (3.7, admin): list, detail, show, enable, disable; every refusal writes nothing."""

import pytest

from cinderlike.db import clusters as db_clusters
from tests.unit.api.conftest import ADMIN, add_service

CLUSTERS = '/v3/clusters'
V37 = {**ADMIN, 'OpenStack-API-Version': 'volume 3.7'}
V326 = {**ADMIN, 'OpenStack-API-Version': 'volume 3.26'}


@pytest.fixture
def seeded(db):
    """c1@lvm: two members (one dead); c2@lvm: one dead member, disabled; c3 for backups."""
    for name, binary in (('c1@lvm', 'cinder-volume'), ('c2@lvm', 'cinder-volume'),
                         ('c3', 'cinder-backup')):
        db_clusters.ensure(db, name=name, binary=binary)
    add_service(db, host='n1@lvm', cluster='c1@lvm')
    add_service(db, host='n2@lvm', cluster='c1@lvm', heartbeat_age=600)
    add_service(db, host='n3@lvm', cluster='c2@lvm', heartbeat_age=600)
    add_service(db, host='n4', binary='cinder-backup', cluster='c3')
    c2 = db_clusters.get(db, name='c2@lvm', down_time=60).cluster
    db_clusters.set_disabled(db, cluster_id=c2.id, disabled=True, reason='maintenance')
    return db


def _state(db, name, binary='cinder-volume'):
    cluster = db_clusters.get(db, name=name, binary=binary, down_time=60).cluster
    return cluster.disabled, cluster.disabled_reason


def _names(resp):
    assert resp.status_code == 200, resp.json
    return [c['name'] for c in resp.json['clusters']]


def test_list_is_the_summary(client, seeded):
    resp = client.simulate_get(CLUSTERS, headers=V37)
    assert resp.json == {'clusters': [
        {'name': 'c1@lvm', 'binary': 'cinder-volume', 'state': 'up', 'status': 'enabled'},
        {'name': 'c2@lvm', 'binary': 'cinder-volume', 'state': 'down', 'status': 'disabled'},
        {'name': 'c3', 'binary': 'cinder-backup', 'state': 'up', 'status': 'enabled'}]}


def test_detail_and_replication_fields_from_3_26(client, seeded):
    first = client.simulate_get(f'{CLUSTERS}/detail', headers=V37).json['clusters'][0]
    assert set(first) == {'name', 'binary', 'state', 'status', 'num_hosts', 'num_down_hosts',
                          'last_heartbeat', 'created_at', 'updated_at', 'disabled_reason'}
    assert (first['num_hosts'], first['num_down_hosts']) == (2, 1)
    assert len(first['last_heartbeat']) == len('2017-06-29T05:50:35.000000')
    assert first['updated_at'] == ''
    newer = client.simulate_get(f'{CLUSTERS}/detail', headers=V326).json['clusters'][1]
    assert (newer['replication_status'], newer['frozen'], newer['active_backend_id']) == (
        'not-capable', False, None)
    assert newer['disabled_reason'] == 'maintenance'
    summary = client.simulate_get(CLUSTERS, headers=V326).json['clusters'][0]
    assert summary['replication_status'] == 'not-capable'
    assert 'frozen' not in summary


@pytest.mark.parametrize('query, names', [
    ('name=c1', ['c1@lvm']),
    ('name=c1@lvm', ['c1@lvm']),
    ('binary=cinder-backup', ['c3']),
    ('is_up=true', ['c1@lvm', 'c3']),
    ('is_up=false', ['c2@lvm']),
    ('disabled=1', ['c2@lvm']),
    ('num_hosts=2', ['c1@lvm']),
    ('num_down_hosts=1', ['c1@lvm', 'c2@lvm']),
    ('num_down_hosts=0&binary=cinder-volume', []),
])
def test_list_filters(client, seeded, query, names):
    assert _names(client.simulate_get(CLUSTERS, query_string=query, headers=V37)) == names


def test_replication_filters_from_3_26(client, seeded):
    query = 'replication_status=not-capable&frozen=false'
    assert _names(client.simulate_get(CLUSTERS, query_string=query, headers=V326)) == [
        'c1@lvm', 'c2@lvm', 'c3']


@pytest.mark.parametrize('query, headers, message', [
    ('bogus=1', V37, 'Invalid input received: Invalid filter keys: bogus'),
    ('frozen=true&zzz=1', V37, 'Invalid input received: Invalid filter keys: frozen, zzz'),
    ('is_up=maybe', V37, "Value 'maybe' for 'is_up' is not a boolean."),
    ('disabled=2', V37, "Value '2' for 'disabled' is not a boolean."),
    ('frozen=x', V326, "Value 'x' for 'frozen' is not a boolean."),
    ('num_hosts=two', V37, "Invalid input received: Value 'two' for 'num_hosts' is not an "
                           "integer."),
])
def test_bad_filters_are_400(client, seeded, query, headers, message):
    resp = client.simulate_get(CLUSTERS, query_string=query, headers=headers)
    assert resp.status_code == 400
    assert resp.json == {'badRequest': {'code': 400, 'message': message}}


def test_show(client, seeded):
    resp = client.simulate_get(f'{CLUSTERS}/c1@lvm', headers=V37)
    assert resp.status_code == 200
    shown = resp.json['cluster']
    assert (shown['name'], shown['state'], shown['num_hosts']) == ('c1@lvm', 'up', 2)
    backup = client.simulate_get(f'{CLUSTERS}/c3', query_string='binary=cinder-backup',
                                 headers=V37)
    assert backup.json['cluster']['binary'] == 'cinder-backup'
    # The project-scoped path serves it too.
    assert client.simulate_get('/v3/admin/clusters/c1@lvm', headers=V37).status_code == 200


@pytest.mark.parametrize('path, query, message', [
    ('nope', None, "Cluster {'binary': 'cinder-volume', 'name': 'nope'} could not be found."),
    ('c3', None, "Cluster {'binary': 'cinder-volume', 'name': 'c3'} could not be found."),
    ('c1@lvm', 'binary=cinder-backup',
     "Cluster {'binary': 'cinder-backup', 'name': 'c1@lvm'} could not be found."),
])
def test_show_missing_is_404(client, seeded, path, query, message):
    resp = client.simulate_get(f'{CLUSTERS}/{path}', query_string=query, headers=V37)
    assert resp.status_code == 404
    assert resp.json == {'itemNotFound': {'code': 404, 'message': message}}


@pytest.mark.parametrize('method, path', [
    ('GET', CLUSTERS), ('GET', f'{CLUSTERS}/detail'), ('GET', f'{CLUSTERS}/c1@lvm'),
    ('PUT', f'{CLUSTERS}/disable')])
def test_before_3_7_there_are_no_clusters(client, seeded, method, path):
    headers = {**ADMIN, 'OpenStack-API-Version': 'volume 3.6'}
    resp = client.simulate_request(method, path, headers=headers,
                                   json={'name': 'c1@lvm'} if method == 'PUT' else None)
    assert resp.status_code == 404
    assert resp.json == {'itemNotFound': {'code': 404,
                                          'message': 'The resource could not be found.'}}
    assert _state(seeded, 'c1@lvm') == (False, None)


def test_disable_then_enable(client, seeded):
    resp = client.simulate_put(f'{CLUSTERS}/disable', headers=V37,
                               json={'name': 'c1@lvm', 'disabled_reason': '  disk swap '})
    assert resp.status_code == 200
    assert resp.json == {'cluster': {'name': 'c1@lvm', 'binary': 'cinder-volume',
                                     'state': 'up', 'status': 'disabled',
                                     'disabled_reason': 'disk swap'}}
    assert _state(seeded, 'c1@lvm') == (True, 'disk swap')
    resp = client.simulate_put(f'{CLUSTERS}/enable', headers=V326,
                               json={'name': 'c1@lvm', 'binary': 'cinder-volume'})
    assert resp.json == {'cluster': {'name': 'c1@lvm', 'binary': 'cinder-volume',
                                     'state': 'up', 'status': 'enabled',
                                     'replication_status': 'not-capable',
                                     'disabled_reason': None}}
    assert _state(seeded, 'c1@lvm') == (False, None)


def test_disable_without_reason_and_other_binary(client, seeded):
    resp = client.simulate_put(f'{CLUSTERS}/disable', headers=V37,
                               json={'name': 'c3', 'binary': 'cinder-backup'})
    assert resp.json['cluster']['disabled_reason'] is None
    assert _state(seeded, 'c3', 'cinder-backup') == (True, None)


@pytest.mark.parametrize('action, body, code, message', [
    ('freeze', {'name': 'c1@lvm'}, 404, 'Unknown action'),
    ('disable', None, 400, "None is not of type 'object'"),
    ('disable', {}, 400, "'name' is a required property"),
    ('disable', {'binary': 'cinder-volume'}, 400, "'name' is a required property"),
    ('disable', {'name': ''}, 400, None),
    ('disable', {'name': '   '}, 400,
     "An invalid 'name' value was provided. The 'name' can not be empty."),
    ('disable', {'name': 'x' * 256}, 400, None),
    ('disable', {'name': 'c1@lvm', 'extra': 1}, 400,
     "Additional properties are not allowed ('extra' was unexpected)"),
    ('enable', {'name': 'c1@lvm', 'disabled_reason': 'why'}, 400,
     "Additional properties are not allowed ('disabled_reason' was unexpected)"),
    ('disable', {'name': 'c1@lvm', 'disabled_reason': '   '}, 400,
     'Invalid input received: disabled_reason has a minimum character requirement of 1.'),
    ('disable', {'name': 'c1@lvm', 'disabled_reason': 'x' * 256}, 400,
     'Invalid input received: disabled_reason has more than 255 characters.'),
    ('disable', {'name': 'c1@lvm', 'disabled_reason': 5}, 400, None),
    ('disable', {'name': 'c1@lvm', 'binary': 'x' * 256}, 400, None),
    ('disable', {'name': 'nope'}, 404,
     "Cluster {'binary': 'cinder-volume', 'name': 'nope'} could not be found."),
    ('disable', {'name': 'c1@lvm', 'binary': 'cinder-backup'}, 404,
     "Cluster {'binary': 'cinder-backup', 'name': 'c1@lvm'} could not be found."),
])
def test_bad_updates_write_nothing(client, seeded, action, body, code, message):
    resp = client.simulate_put(f'{CLUSTERS}/{action}', headers=V37, json=body)
    assert resp.status_code == code
    (name, fault), = resp.json.items()
    assert name == ('badRequest' if code == 400 else 'itemNotFound')
    assert fault['code'] == code
    if message is not None:
        assert fault['message'] == message
    assert _state(seeded, 'c1@lvm') == (False, None)
    assert _state(seeded, 'c2@lvm') == (True, 'maintenance')


def test_malformed_body_is_400(client, seeded):
    resp = client.simulate_put(f'{CLUSTERS}/disable', headers=V37, body='{not json')
    assert resp.json == {'badRequest': {'code': 400, 'message': 'Malformed request body'}}
    assert _state(seeded, 'c1@lvm') == (False, None)


@pytest.mark.parametrize('method, path', [
    ('GET', CLUSTERS), ('GET', f'{CLUSTERS}/detail'), ('GET', f'{CLUSTERS}/c1@lvm'),
    ('PUT', f'{CLUSTERS}/disable')])
def test_non_admins_are_refused(keystone_client, seeded, method, path):
    headers = {'X-User-Id': 'u1', 'X-Project-Id': 'p1', 'X-Roles': 'member',
               'OpenStack-API-Version': 'volume 3.7'}
    resp = keystone_client.simulate_request(method, path, headers=headers,
                                            json={'name': 'c1@lvm'} if method == 'PUT' else None)
    assert resp.status_code == 403
    assert list(resp.json) == ['forbidden']
    assert _state(seeded, 'c1@lvm') == (False, None)
