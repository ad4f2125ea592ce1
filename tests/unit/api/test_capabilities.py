"""GET /capabilities/{host}: lookup of the volume service, the RPC call, the view, admin only."""

import oslo_messaging as messaging
import pytest

from tests.unit.api.conftest import add_service
from tests.unit.api.type_fixtures import admin, user

REPORTED = {
    'vendor_name': 'cinderlike', 'volume_backend_name': 'lvm-1', 'driver_version': '1.0.0',
    'storage_protocol': ['iSCSI', 'iscsi'], 'pools': [{'pool_name': 'lvm-1'}],
    'properties': {'qos': {'title': 'QoS', 'description': 'Enables QoS.', 'type': 'boolean'}},
}


@pytest.fixture
def backend(db, answering):
    add_service(db, host='node1', binary='cinder-scheduler')
    add_service(db, host='node1@lvm')
    add_service(db, host='node2@nfs', cluster='c1@nfs')
    answering.volume.answer = dict(REPORTED)
    return answering.volume


def _get(client, host):
    return client.simulate_get(f'/v3/capabilities/{host}', headers=admin())


def test_shows_cinders_fields_from_the_backends_answer(pclient, backend):
    resp = _get(pclient, 'node1@lvm')
    assert resp.status_code == 200
    assert resp.json == {
        'namespace': 'OS::Storage::Capabilities::node1@lvm', 'vendor_name': 'cinderlike',
        'volume_backend_name': 'lvm-1', 'pool_name': None, 'driver_version': '1.0.0',
        'storage_protocol': 'iSCSI', 'display_name': None, 'description': None,
        'visibility': None, 'replication_targets': [],
        'properties': REPORTED['properties']}
    assert backend.calls == [('get_capabilities', {'host': 'node1@lvm', 'discover': False})]


def test_a_bare_host_names_its_first_backend(pclient, backend):
    assert _get(pclient, 'node1').json['namespace'] == 'OS::Storage::Capabilities::node1@lvm'
    assert backend.calls[0][1]['host'] == 'node1@lvm'


@pytest.mark.parametrize('host', ['node2@nfs', 'c1@nfs', 'c1'])
def test_a_clustered_backend_is_asked_through_its_cluster(pclient, backend, host):
    resp = _get(pclient, host)
    assert resp.json['namespace'] == 'OS::Storage::Capabilities::c1@nfs'
    assert backend.calls == [('get_capabilities', {'host': 'c1@nfs', 'discover': False})]


def test_a_driver_that_is_down_shows_empty_fields(pclient, backend):
    backend.answer = {}
    shown = _get(pclient, 'node1@lvm').json
    assert shown['properties'] is None
    assert shown['replication_targets'] == []


@pytest.mark.parametrize('host', ['node3', 'node1@nfs', 'node10', 'node1@lvm#pool', 'node',
                                  'node1@lv%'])
def test_unknown_backend_is_404_without_a_call(pclient, backend, host):
    resp = _get(pclient, host)
    assert resp.status_code == 404
    assert resp.json == {'itemNotFound': {'code': 404,
                                          'message': f"Can't find service: {host}"}}
    assert backend.calls == []


def test_a_scheduler_host_is_not_a_backend(pclient, db, backend):
    add_service(db, host='sched-only', binary='cinder-scheduler')
    assert _get(pclient, 'sched-only').status_code == 404


def test_a_backend_that_does_not_answer_is_502(pclient, backend):
    backend.error = messaging.MessagingTimeout('no reply')
    resp = _get(pclient, 'node1@lvm')
    assert resp.status_code == 502
    assert resp.json == {'computeFault': {'code': 502, 'message': 'Bad gateway.'}}


@pytest.mark.parametrize('roles', ['reader,member', 'member'])
def test_only_admins(pkclient, backend, roles):
    resp = pkclient.simulate_get('/v3/capabilities/node1@lvm', headers=user(roles=roles))
    assert resp.status_code == 403
    assert resp.json['forbidden']['message'] == (
        "Policy doesn't allow volume_extension:capabilities to be performed.")
    assert backend.calls == []
