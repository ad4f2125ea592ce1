"""POST /workers/cleanup (3.24): the request the scheduler's work_cleanup receives, a lone
resource_id resolved to its workers row, Cinder's answer and faults, admin only."""

import datetime

import pytest

from cinderlike.db import workers as db_workers
from tests.unit.api.conftest import add_service
from tests.unit.api.type_fixtures import admin, user

VOLUME_ID = '11111111-2222-3333-4444-555555555555'
DEAD = {'id': 2, 'host': 'node2@lvm', 'binary': 'cinder-volume', 'cluster_name': 'c1@lvm'}
ORPHAN = {'id': 3, 'host': 'node3@lvm', 'binary': 'cinder-volume', 'cluster_name': None}


@pytest.fixture
def scheduler(answering):
    answering.scheduler.answer = ([DEAD], [ORPHAN])
    return answering.scheduler


def _post(client, body, version='3.24', headers=None):
    return client.simulate_post('/v3/workers/cleanup', json=body,
                                headers=headers or admin(version))


def test_answers_cleaning_and_unavailable_services_in_cinders_format(pclient, scheduler):
    resp = _post(pclient, {})
    assert resp.status_code == 202
    assert resp.json == {'cleaning': [DEAD], 'unavailable': [ORPHAN]}
    ((method, kwargs),) = scheduler.calls
    assert method == 'work_cleanup'
    request = kwargs['cleanup_request']
    # is_up is left to the scheduler's default (only down services); until is now.
    assert set(request) == {'until'}
    until = datetime.datetime.fromisoformat(request['until'])
    assert abs((datetime.datetime.utcnow() - until).total_seconds()) < 60


def test_passes_filters_with_booleans_and_resource_type_normalised(pclient, scheduler):
    resp = _post(pclient, {'cluster_name': 'c1@lvm', 'host': 'node2@lvm', 'service_id': '2',
                           'binary': 'cinder-volume', 'is_up': 'false', 'disabled': 'no',
                           'resource_type': 'volume', 'resource_id': VOLUME_ID})
    assert resp.status_code == 202
    request = scheduler.calls[0][1]['cleanup_request']
    assert {k: v for k, v in request.items() if k != 'until'} == {
        'cluster_name': 'c1@lvm', 'host': 'node2@lvm', 'service_id': 2,
        'binary': 'cinder-volume', 'is_up': False, 'disabled': False,
        'resource_type': 'Volume', 'resource_id': VOLUME_ID}


def test_a_lone_resource_id_is_sent_to_the_service_holding_its_row(pclient, db, scheduler):
    service = add_service(db, host='node2@lvm', heartbeat_age=300)
    db_workers.begin(db, resource_type='Volume', resource_id=VOLUME_ID, status='creating',
                     service_id=service.id)
    resp = _post(pclient, {'resource_id': VOLUME_ID})
    assert resp.status_code == 202
    request = scheduler.calls[0][1]['cleanup_request']
    assert (request['service_id'], request['resource_type']) == (service.id, 'Volume')


def test_a_backup_resource_id_is_sent_to_the_backup_service_holding_its_row(pclient, db,
                                                                          scheduler):
    service = add_service(db, host='node2', binary='cinder-backup', heartbeat_age=300)
    db_workers.begin(db, resource_type='Backup', resource_id=VOLUME_ID, status='creating',
                     service_id=service.id)
    resp = _post(pclient, {'resource_type': 'BACKUP', 'resource_id': VOLUME_ID})
    assert resp.status_code == 202
    request = scheduler.calls[0][1]['cleanup_request']
    assert (request['service_id'], request['resource_type']) == (service.id, 'Backup')


@pytest.mark.parametrize('body, reason', [
    ({'resource_id': VOLUME_ID},
     f'There is no resource with UUID {VOLUME_ID} pending cleanup.'),
    ({'resource_type': 'group'},
     'Resource type Group not valid, must be Volume or Snapshot or Backup'),
])
def test_refuses_what_cinder_refuses(pclient, scheduler, body, reason):
    resp = _post(pclient, body)
    assert resp.status_code == 400
    assert resp.json == {'badRequest': {'code': 400,
                                        'message': f'Invalid input received: {reason}'}}
    assert scheduler.calls == []


@pytest.mark.parametrize('body', [
    {'binary': 'cinder-backup'}, {'is_up': 'maybe'}, {'service_id': 'abc'},
    {'resource_id': 'not-a-uuid'}, {'unknown': 1}, {'host': 'bad host'},
])
def test_refuses_bodies_outside_the_schema(pclient, scheduler, body):
    resp = _post(pclient, body)
    assert resp.status_code == 400
    assert 'badRequest' in resp.json
    assert scheduler.calls == []


def test_is_admin_only(pkclient, scheduler):
    resp = _post(pkclient, {}, headers=user(version='3.24'))
    assert resp.status_code == 403
    assert scheduler.calls == []


def test_needs_3_24(pclient, scheduler):
    assert _post(pclient, {}, version='3.23').status_code == 404
    assert scheduler.calls == []
