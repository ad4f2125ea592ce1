"""os-services: listing with filters and enabling/disabling services for scheduling."""

import pytest

from cinderlike.db import services as db_services
from tests.unit.api.conftest import ADMIN, add_service

SERVICES = '/v3/os-services'


def _list(client, query=None, version=None):
    headers = dict(ADMIN)
    if version:
        headers['OpenStack-API-Version'] = f'volume {version}'
    resp = client.simulate_get(SERVICES, query_string=query, headers=headers)
    assert resp.status_code == 200
    return resp.json['services']


def _put(client, action, body):
    return client.simulate_put(f'{SERVICES}/{action}', headers=ADMIN, json=body)


def test_list_fields_and_state(client, db):
    add_service(db, host='node1', binary='cinder-scheduler', zone='az1')
    add_service(db, host='node1@lvm', zone='az1', heartbeat_age=120,
                disabled=True, reason='maintenance')
    scheduler, volume = _list(client)
    assert scheduler == {
        'binary': 'cinder-scheduler', 'host': 'node1', 'zone': 'az1', 'status': 'enabled',
        'state': 'up', 'updated_at': scheduler['updated_at'], 'disabled_reason': None}
    assert volume['state'] == 'down'
    assert volume['status'] == 'disabled'
    assert volume['disabled_reason'] == 'maintenance'
    assert (volume['replication_status'], volume['active_backend_id'], volume['frozen']) == (
        'not-capable', None, False)
    assert len(volume['updated_at']) == len('2017-06-29T05:50:35.000000')
    assert 'cluster' not in volume


def test_cluster_shown_from_3_7(client, db):
    add_service(db, host='node1@lvm', cluster='c1@lvm')
    assert 'cluster' not in _list(client, version='3.6')[0]
    assert _list(client, version='3.7')[0]['cluster'] == 'c1@lvm'


def test_filters_by_binary_and_host_levels(client, db):
    add_service(db, host='node1', binary='cinder-scheduler')
    add_service(db, host='node1@lvm')
    add_service(db, host='node10@lvm')
    add_service(db, host='node2@lvm')
    hosts = lambda query: sorted(s['host'] for s in _list(client, query))  # noqa: E731
    assert hosts('binary=cinder-volume') == ['node10@lvm', 'node1@lvm', 'node2@lvm']
    assert hosts('host=node1') == ['node1', 'node1@lvm']
    assert hosts('host=node1@lvm') == ['node1@lvm']
    assert hosts('host=node1&binary=cinder-scheduler') == ['node1']
    assert hosts('host=nowhere') == []


@pytest.mark.parametrize('action, disabled', [('disable', True), ('enable', False)])
def test_enable_disable_change_the_row(client, db, action, disabled):
    row = add_service(db, host='node1@lvm', disabled=not disabled, reason='old')
    resp = _put(client, action, {'host': 'node1@lvm', 'binary': 'cinder-volume'})
    assert resp.status_code == 200
    assert resp.json == {'host': 'node1@lvm', 'service': '', 'binary': 'cinder-volume',
                         'status': 'disabled' if disabled else 'enabled', 'disabled': disabled}
    after = db_services.get(db, row.id)
    assert after.disabled is disabled
    assert after.disabled_reason is None
    # The heartbeat stays: disabling is not a sign of life.
    assert after.updated_at == row.updated_at
    assert after.modified_at is not None


def test_disable_log_reason(client, db):
    row = add_service(db, host='node1@lvm')
    resp = _put(client, 'disable-log-reason',
                {'host': 'node1@lvm', 'binary': 'cinder-volume', 'disabled_reason': 'disk swap'})
    assert resp.status_code == 200
    assert resp.json == {'host': 'node1@lvm', 'service': '', 'binary': 'cinder-volume',
                         'status': 'disabled', 'disabled': True, 'disabled_reason': 'disk swap'}
    after = db_services.get(db, row.id)
    assert (after.disabled, after.disabled_reason) == (True, 'disk swap')
    assert _list(client)[0]['status'] == 'disabled'


def test_legacy_service_key_is_accepted(client, db):
    row = add_service(db, host='node1@lvm')
    resp = _put(client, 'disable', {'host': 'node1@lvm', 'service': 'cinder-volume'})
    assert resp.json['service'] == 'cinder-volume'
    assert resp.json['binary'] == ''
    assert db_services.get(db, row.id).disabled is True


def test_disabled_dead_service_stays_down(client, db):
    add_service(db, host='node1@lvm', heartbeat_age=600)
    _put(client, 'disable', {'host': 'node1@lvm', 'binary': 'cinder-volume'})
    assert _list(client)[0]['state'] == 'down'


@pytest.mark.parametrize('action, body, code, message', [
    ('disable', {'binary': 'cinder-volume'}, 400,
     'Invalid input received: Host field is missing.'),
    ('disable', {'host': 'node1@lvm'}, 400,
     "{'host': 'node1@lvm'} is not valid under any of the given schemas"),
    ('disable', {'host': 'node1@lvm', 'binary': 'cinder-volume', 'extra': 1}, 400,
     "Additional properties are not allowed ('extra' was unexpected)"),
    ('disable', {'host': 'bad host', 'binary': 'cinder-volume'}, 400, None),
    ('disable-log-reason',
     {'host': 'node1@lvm', 'binary': 'cinder-volume', 'disabled_reason': 'x' * 256}, 400, None),
    ('disable-log-reason',
     {'host': 'node1@lvm', 'binary': 'cinder-volume', 'disabled_reason': '   '}, 400,
     'Invalid input received: disabled_reason has a minimum character requirement of 1.'),
    ('disable', {'host': 'nowhere', 'binary': 'cinder-volume'}, 404,
     'Service cinder-volume could not be found on host nowhere.'),
    ('disable', {'host': 'node1@lvm', 'binary': 'cinder-backup'}, 404,
     'Service cinder-backup could not be found on host node1@lvm.'),
])
def test_bad_updates_are_refused_and_write_nothing(client, db, action, body, code, message):
    row = add_service(db, host='node1@lvm')
    resp = _put(client, action, body)
    assert resp.status_code == code
    (name, fault), = resp.json.items()
    assert name == ('badRequest' if code == 400 else 'itemNotFound')
    assert fault['code'] == code
    if message is not None:
        assert fault['message'] == message
    after = db_services.get(db, row.id)
    assert (after.disabled, after.disabled_reason, after.modified_at) == (False, None, None)


def test_reason_too_long_names_the_field(client, db):
    add_service(db, host='node1@lvm')
    resp = _put(client, 'disable-log-reason',
                {'host': 'node1@lvm', 'binary': 'cinder-volume', 'disabled_reason': 'x' * 256})
    assert resp.json['badRequest']['message'].startswith(
        'Invalid input for field/attribute disabled_reason.')


def test_malformed_body_is_400(client, db):
    resp = client.simulate_put(f'{SERVICES}/disable', headers=ADMIN, body='{not json')
    assert resp.status_code == 400
    assert resp.json == {'badRequest': {'code': 400, 'message': 'Malformed request body'}}
