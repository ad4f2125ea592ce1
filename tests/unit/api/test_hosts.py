"""/os-hosts (admin): the enabled services as Cinder lists them, and a volume host's volumes
and snapshots counted from the database, in total and per project."""

from cinderlike.db import snapshots as db_snapshots
from cinderlike.db import volume_types as db_types
from cinderlike.db import volumes as db_volumes
from tests.unit.api.conftest import ADMIN, add_service
from tests.unit.api.type_fixtures import seed_default, user
from tests.unit.api.volume_fixtures import fault


def _volume(db, *, host, project, size, deleted=False):
    type_id = db_types.get_by_name(db, name='__DEFAULT__').id
    row = db_volumes.create(db, values={'status': 'available', 'size': size, 'host': host,
                                        'project_id': project, 'volume_type_id': type_id,
                                        'deleted': deleted})
    return row


def _snapshot(db, volume, size, project=None):
    db_snapshots.create(db, values={'volume_id': volume.id, 'volume_size': size,
                                    'project_id': project or volume.project_id,
                                    'status': 'available',
                                    'volume_type_id': volume.volume_type_id})


def test_list_shows_enabled_services(client, db):
    add_service(db, host='node1@file', zone='az1')
    add_service(db, host='node1', binary='cinder-scheduler', zone='az2', heartbeat_age=600)
    add_service(db, host='node2@file', disabled=True)
    resp = client.simulate_get('/v3/os-hosts', headers=ADMIN)
    assert resp.status_code == 200
    listed = resp.json['hosts']
    assert [(h['host_name'], h['service'], h['zone'], h['service-status'],
             h['service-state']) for h in listed] == [
        ('node1@file', 'cinder-volume', 'az1', 'available', 'enabled'),
        ('node1', 'cinder-scheduler', 'az2', 'unavailable', 'enabled')]
    assert len(listed[0]['last-update']) == len('2026-01-01T00:00:00.000000')
    zoned = client.simulate_get('/v3/os-hosts', query_string='zone=az2', headers=ADMIN)
    assert [h['host_name'] for h in zoned.json['hosts']] == ['node1']


def test_show_counts_volumes_and_snapshots_per_project(client, db):
    seed_default(db)
    add_service(db, host='node1@file')
    first = _volume(db, host='node1@file#pool', project='p1', size=2)
    _volume(db, host='node1@file', project='p1', size=3)
    second = _volume(db, host='node1@file#other', project='p2', size=5)
    _volume(db, host='node1@file#pool', project='p2', size=7, deleted=True)
    _volume(db, host='node1@lvm#pool', project='p3', size=11)
    _snapshot(db, first, 2)
    _snapshot(db, second, 5)
    _snapshot(db, second, 5)
    resp = client.simulate_get('/v3/os-hosts/node1', headers=ADMIN)
    assert resp.status_code == 200

    def row(project, volumes, volume_gb, snapshots, snapshot_gb):
        return {'resource': {'host': 'node1', 'project': project, 'volume_count': volumes,
                             'total_volume_gb': volume_gb, 'snapshot_count': snapshots,
                             'total_snapshot_gb': snapshot_gb}}
    # `node1` finds the service node1@file; its volumes are node1@file and its pools.
    assert resp.json == {'host': [row('(total)', '3', '10', '3', '12'),
                                  row('p1', '2', '5', '1', '2'),
                                  row('p2', '1', '5', '2', '10')]}


def test_show_of_a_host_without_volumes(client, db):
    add_service(db, host='empty@file')
    resp = client.simulate_get('/v3/os-hosts/empty@file', headers=ADMIN)
    assert resp.json == {'host': [{'resource': {
        'host': 'empty@file', 'project': '(total)', 'volume_count': '0',
        'total_volume_gb': '0', 'snapshot_count': '0', 'total_snapshot_gb': '0'}}]}


def test_show_needs_an_enabled_volume_service(client, db):
    add_service(db, host='sched', binary='cinder-scheduler')
    add_service(db, host='off@file', disabled=True)
    for host in ('sched', 'off@file', 'nowhere'):
        resp = client.simulate_get(f'/v3/os-hosts/{host}', headers=ADMIN)
        assert fault(resp) == (404, f'Service cinder-volume could not be found on host {host}.')


def test_non_admins_are_refused(keystone_client, db):
    add_service(db, host='node1@file')
    message = (403, "Policy doesn't allow volume_extension:hosts to be performed.")
    member = user('reader,member')
    assert fault(keystone_client.simulate_get('/v3/os-hosts', headers=member)) == message
    assert fault(keystone_client.simulate_get('/v3/os-hosts/node1@file',
                                              headers=member)) == message
