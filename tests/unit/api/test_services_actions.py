"""os-services freeze / thaw / failover_host / set-log / get-log and 3.49's backend_state:
the rows they change, the RPCs they send, and Cinder's 4xx for every bad input."""

import dataclasses
import logging

import pytest
from falcon import testing
from oslo_log import log as oslo_logging

from cinderlike.api.app import create_app
from cinderlike.db import clusters as db_clusters
from cinderlike.db import services as db_services
from cinderlike.db import snapshots as db_snapshots
from cinderlike.db import volumes as db_volumes
from tests.unit.api.conftest import ADMIN, add_service
from tests.unit.api.pool_fixtures import Answering
from tests.unit.api.snapshot_fixtures import add_snapshot
from tests.unit.api.type_fixtures import seed_default
from tests.unit.api.volume_fixtures import add_volume

SERVICES = '/v3/os-services'


@dataclasses.dataclass
class RPC:
    scheduler: Answering = dataclasses.field(default_factory=lambda: Answering({}))
    volume: Answering = dataclasses.field(default_factory=lambda: Answering(True))
    backup: Answering = dataclasses.field(default_factory=lambda: Answering({}))


@pytest.fixture
def rpc():
    return RPC()


@pytest.fixture
def sclient(conf, db, rpc):
    return testing.TestClient(create_app(conf, db=db, rpc=rpc))


def _put(client, action, body, version='3.32'):
    headers = {**ADMIN, 'OpenStack-API-Version': f'volume {version}'}
    return client.simulate_put(f'{SERVICES}/{action}', headers=headers, json=body)


def _row(db, row):
    return db_services.get(db, row.id)


def _fault(resp, code):
    assert resp.status_code == code, resp.text
    (name, fault), = resp.json.items()
    assert name == {400: 'badRequest', 404: 'itemNotFound', 403: 'forbidden'}[code]
    return fault['message']


def test_freeze_marks_the_backend_and_calls_it(sclient, db, rpc):
    row = add_service(db, host='node1@lvm')
    resp = _put(sclient, 'freeze', {'host': 'node1@lvm'})
    assert (resp.status_code, resp.text) == (200, '')
    assert _row(db, row).frozen is True
    assert rpc.volume.calls == [('freeze_host', {'host': 'node1@lvm', 'cluster_name': None})]


def test_thaw_clears_frozen_and_reports_a_driver_refusal(sclient, db, rpc):
    row = add_service(db, host='node1@lvm')
    _put(sclient, 'freeze', {'host': 'node1@lvm'})
    resp = _put(sclient, 'thaw', {'host': 'node1@lvm'})
    assert (resp.status_code, resp.text) == (200, '')
    assert _row(db, row).frozen is False
    _put(sclient, 'freeze', {'host': 'node1@lvm'})
    rpc.volume.answer = False
    resp = _put(sclient, 'thaw', {'host': 'node1@lvm'})
    assert (resp.status_code, resp.text) == (
        200, 'Backend reported error during thaw_host operation.')


def test_freeze_of_a_cluster_member_freezes_the_cluster(sclient, db, rpc):
    one = add_service(db, host='node1@lvm', cluster='c1@lvm')
    two = add_service(db, host='node2@lvm', cluster='c1@lvm')
    db_clusters.ensure(db, name='c1@lvm', binary='cinder-volume')
    assert _put(sclient, 'freeze', {'host': 'node1@lvm'}).status_code == 200
    assert (_row(db, one).frozen, _row(db, two).frozen) == (True, True)
    cluster = db_clusters.get(db, name='c1@lvm', down_time=60).cluster
    assert cluster.frozen is True
    assert rpc.volume.calls[0] == ('freeze_host', {'host': 'node1@lvm', 'cluster_name': 'c1@lvm'})
    # 3.26: by cluster name
    assert _put(sclient, 'thaw', {'cluster': 'c1@lvm'}, version='3.26').status_code == 200
    assert (_row(db, one).frozen, _row(db, two).frozen) == (False, False)


@pytest.mark.parametrize('action, body, version, code, message', [
    ('freeze', {}, '3.0', 400, 'Invalid input received: Host field is missing.'),
    ('freeze', {'cluster': 'c1@lvm'}, '3.0', 400,
     'Invalid input received: Host field is missing.'),
    ('freeze', {'host': 'node1@lvm', 'cluster': 'c1@lvm'}, '3.26', 400,
     'Invalid input received: One and only one of cluster and host must be set.'),
    ('freeze', {'host': 'nowhere'}, '3.0', 400, 'No service found with host=nowhere'),
    ('thaw', {'cluster': 'nocluster'}, '3.26', 400, 'No service found with cluster=nocluster'),
    ('thaw', {'host': 'node1@lvm'}, '3.0', 400,
     "Invalid input received: No service could be changed: frozen in ['node1@lvm'] must be "
     'True to failover.'),
    ('freeze', {'host': 'node1@lvm', 'extra': 1}, '3.0', 400,
     "Additional properties are not allowed ('extra' was unexpected)"),
    ('freeze', {'host': 'bad host'}, '3.0', 400, None),
    ('failover_host', {'host': 'node1@lvm'}, '3.0', 400,
     "Invalid input received: No service could be changed: replication_status in "
     "['node1@lvm'] must be ['enabled', 'failed-over'] and must be up to failover."),
    ('failover_host', {'host': 'node1@lvm', 'backend_id': 5}, '3.0', 400, None),
    ('set-log', {'level': 'debug'}, '3.31', 404, None),
    ('get-log', {}, '3.31', 404, None),
    ('set-log', {'level': 'verbose'}, '3.32', 400,
     'Invalid input received: verbose is not a valid log level.'),
    ('set-log', {'prefix': 'cinderlike'}, '3.32', 400,
     'Invalid input received:  is not a valid log level.'),
    ('set-log', {'binary': 'nova-compute', 'level': 'DEBUG'}, '3.32', 400, None),
    ('get-log', {'level': 'DEBUG'}, '3.32', 400,
     "Additional properties are not allowed ('level' was unexpected)"),
])
def test_bad_actions_are_refused_and_change_nothing(sclient, db, rpc, action, body, version,
                                                    code, message):
    row = add_service(db, host='node1@lvm')
    levels = oslo_logging.getLogger('cinderlike').logger.level
    resp = _put(sclient, action, body, version=version)
    text = _fault(resp, code)
    if message is not None:
        assert text == message
    after = _row(db, row)
    assert (after.frozen, after.replication_status, after.disabled) == (
        False, 'not-capable', False)
    assert rpc.volume.calls == rpc.scheduler.calls == rpc.backup.calls == []
    assert oslo_logging.getLogger('cinderlike').logger.level == levels


def test_management_actions_are_for_admins(conf, db, rpc):
    conf.set_override('auth_strategy', 'keystone')
    client = testing.TestClient(create_app(conf, db=db, rpc=rpc, use_auth_token=False))
    row = add_service(db, host='node1@lvm')
    headers = {'X-User-Id': 'u', 'X-Project-Id': 'p', 'X-Roles': 'member',
               'OpenStack-API-Version': 'volume 3.32'}
    for action, body in (('freeze', {'host': 'node1@lvm'}), ('set-log', {'level': 'DEBUG'}),
                         ('get-log', {})):
        resp = client.simulate_put(f'{SERVICES}/{action}', headers=headers, json=body)
        assert resp.status_code == 403
    assert _row(db, row).frozen is False
    assert rpc.volume.calls == []


def test_set_log_reaches_this_process_and_each_up_daemon(sclient, db, rpc):
    add_service(db, host='node1', binary='cinder-scheduler')
    add_service(db, host='node1@lvm')
    add_service(db, host='node2@lvm', heartbeat_age=600)
    add_service(db, host='node1', binary='cinder-backup')
    logger = oslo_logging.getLogger('cinderlike.test_set_log').logger
    logger.setLevel(logging.INFO)
    resp = _put(sclient, 'set-log', {'prefix': 'cinderlike.test_set_log', 'level': 'debug'})
    assert (resp.status_code, resp.text) == (202, '')
    assert logger.level == logging.DEBUG
    sent = {'prefix': 'cinderlike.test_set_log', 'level': 'debug'}
    assert rpc.scheduler.calls == [('set_log_levels', {'host': 'node1', **sent})]
    # the down node2@lvm is skipped, as Cinder's is_up filter does
    assert rpc.volume.calls == [('set_log_levels', {'host': 'node1@lvm', **sent})]
    assert rpc.backup.calls == [('set_log_levels', {'host': 'node1', **sent})]


def test_set_log_of_one_binary_and_server(sclient, db, rpc):
    add_service(db, host='node1', binary='cinder-scheduler')
    add_service(db, host='node1@lvm')
    add_service(db, host='node2@lvm')
    logger = oslo_logging.getLogger('cinderlike.test_one_binary').logger
    logger.setLevel(logging.INFO)
    _put(sclient, 'set-log', {'binary': 'cinder-volume', 'server': 'node2',
                              'prefix': 'cinderlike.test_one_binary', 'level': 'ERROR'})
    assert logger.level == logging.INFO
    assert [c[1]['host'] for c in rpc.volume.calls] == ['node2@lvm']
    assert rpc.scheduler.calls == []
    rpc.volume.calls.clear()
    _put(sclient, 'set-log', {'binary': 'cinder-api', 'prefix': 'cinderlike.test_one_binary',
                              'level': 'ERROR'})
    assert logger.level == logging.ERROR
    assert rpc.volume.calls == []


def test_get_log_lists_this_process_and_the_daemons(conf, sclient, db, rpc):
    add_service(db, host='node1@lvm')
    oslo_logging.getLogger('cinderlike.test_get_log').logger.setLevel(logging.WARNING)
    rpc.volume.answer = {'cinderlike.volume': 'DEBUG'}
    resp = _put(sclient, 'get-log', {'prefix': 'cinderlike.test_get_log'})
    assert resp.status_code == 200
    assert resp.json == {'log_levels': [
        {'host': conf.host, 'binary': 'cinder-api',
         'levels': {'cinderlike.test_get_log': 'WARNING'}},
        {'host': 'node1@lvm', 'binary': 'cinder-volume', 'levels': {'cinderlike.volume': 'DEBUG'}},
    ]}
    assert rpc.volume.calls == [('get_log_levels', {'host': 'node1@lvm',
                                                    'prefix': 'cinderlike.test_get_log'})]
    # a server other than this host leaves the API's own entry out
    resp = _put(sclient, 'get-log', {'server': 'node1', 'prefix': 'x'})
    assert [e['binary'] for e in resp.json['log_levels']] == ['cinder-volume']


def test_backend_state_from_3_49(sclient, db, rpc):
    add_service(db, host='node1', binary='cinder-scheduler')
    add_service(db, host='node1@lvm')
    add_service(db, host='node1@gone')
    rpc.scheduler.answer = [{'name': 'node1@lvm#pool', 'capabilities': {'backend_state': 'down'}}]
    headers = {**ADMIN, 'OpenStack-API-Version': 'volume 3.49'}
    listed = sclient.simulate_get(SERVICES, headers=headers).json['services']
    assert [s.get('backend_state', 'absent') for s in listed] == ['absent', 'down', None]
    older = sclient.simulate_get(
        SERVICES, headers={**ADMIN, 'OpenStack-API-Version': 'volume 3.48'}).json['services']
    assert all('backend_state' not in s for s in older)
    assert [c[0] for c in rpc.scheduler.calls] == ['get_pools']


@pytest.fixture
def frozen_volume(sclient, db):
    seed_default(db)
    add_service(db, host='node1@lvm')
    volume = add_volume(db, host='node1@lvm#pool')
    assert _put(sclient, 'freeze', {'host': 'node1@lvm'}).status_code == 200
    return volume


def test_frozen_backend_refuses_delete_and_snapshots(sclient, db, rpc, frozen_volume):
    message = ('Invalid input received: Modification operations are not allowed on frozen '
               'storage backends.')
    snapshot = add_snapshot(db, frozen_volume)
    resp = sclient.simulate_delete(f'/v3/admin/volumes/{frozen_volume.id}', headers=ADMIN)
    assert _fault(resp, 400) == message
    resp = sclient.simulate_post('/v3/admin/snapshots', headers=ADMIN,
                                 json={'snapshot': {'volume_id': frozen_volume.id}})
    assert _fault(resp, 400) == message
    resp = sclient.simulate_delete(f'/v3/admin/snapshots/{snapshot.id}', headers=ADMIN)
    assert _fault(resp, 400) == message
    assert db_volumes.get(db, volume_id=frozen_volume.id).status == 'available'
    assert db_snapshots.get(db, snapshot_id=snapshot.id).status == 'available'
    assert [c[0] for c in rpc.volume.calls] == ['freeze_host']
    # as Cinder, unmanaging a snapshot is not a modification the freeze refuses
    resp = sclient.simulate_post(f'/v3/admin/snapshots/{snapshot.id}/action', headers=ADMIN,
                                 json={'os-unmanage': None})
    assert resp.status_code == 202
    assert db_snapshots.get(db, snapshot_id=snapshot.id).status == 'unmanaging'
    db_snapshots.MACHINE.destroy(db, row_id=snapshot.id, action='unmanage')  # as its service
    assert _put(sclient, 'thaw', {'host': 'node1@lvm'}).status_code == 200
    resp = sclient.simulate_delete(f'/v3/admin/volumes/{frozen_volume.id}', headers=ADMIN)
    assert resp.status_code == 202


def test_a_frozen_cluster_refuses_its_volumes_delete_before_their_status(sclient, db, rpc):
    """The freeze is checked in the delete's CAS UPDATE: a clustered volume answers the
    cluster's flag, and a frozen backend's refusal comes before the status's."""
    seed_default(db)
    add_service(db, host='node1@lvm', cluster='c1@lvm')
    db_clusters.ensure(db, name='c1@lvm', binary='cinder-volume')
    ready = add_volume(db, host='node1@lvm#pool', cluster_name='c1@lvm#pool')
    busy = add_volume(db, host='node1@lvm#pool', cluster_name='c1@lvm#pool', status='creating')
    assert _put(sclient, 'freeze', {'cluster': 'c1@lvm'}, version='3.26').status_code == 200
    frozen = ('Invalid input received: Modification operations are not allowed on frozen '
              'storage backends.')
    for volume in (ready, busy):
        resp = sclient.simulate_delete(f'/v3/admin/volumes/{volume.id}', headers=ADMIN)
        assert _fault(resp, 400) == frozen
    assert _put(sclient, 'thaw', {'cluster': 'c1@lvm'}, version='3.26').status_code == 200
    resp = sclient.simulate_delete(f'/v3/admin/volumes/{busy.id}', headers=ADMIN)
    assert _fault(resp, 400).startswith('Invalid volume: Volume status must be')
    assert sclient.simulate_delete(f'/v3/admin/volumes/{ready.id}',
                                   headers=ADMIN).status_code == 202
    assert db_volumes.get(db, volume_id=busy.id).terminated_at is None
    assert [c[0] for c in rpc.volume.calls] == ['freeze_host', 'thaw_host', 'delete_volume']
