"""The snapshots API over real PostgreSQL and MariaDB: create with its quota, listings
(metadata and zone EXISTS filters, LIKE, NULL-safe sort, marker pages, count), metadata."""

import datetime
import uuid

import pytest
from falcon import testing

from cinderlike import conf as cl_conf
from cinderlike.api.app import create_app
from cinderlike.db import snapshots as db_snapshots
from cinderlike.db import volume_types as db_types
from cinderlike.db import volumes as db_volumes
from tests.unit.api.volume_fixtures import RecordingRPC, usages

T0 = datetime.datetime(2026, 1, 1)


@pytest.fixture
def rpc():
    return RecordingRPC()


@pytest.fixture
def client(db, rpc):
    config = cl_conf.new_conf()
    config([])
    config.set_override('auth_strategy', 'noauth')
    return testing.TestClient(create_app(config, db=db, rpc=rpc))


@pytest.fixture
def project():
    return uuid.uuid4().hex


def _headers(project, version='3.66'):
    return {'X-Auth-Token': f'admin:{project}', 'OpenStack-API-Version': f'volume {version}'}


def _volume(db, project, *, zone='nova', size=1):
    return db_volumes.create(db, values={
        'status': 'available', 'size': size, 'host': 'node@fake#pool', 'project_id': project,
        'user_id': 'u1', 'availability_zone': zone, 'attach_status': 'detached',
        'volume_type_id': db_types.get_by_name(db, name='__DEFAULT__').id})


def _snapshot(db, volume, name, minutes, metadata=None, **values):
    row = db_snapshots.create(db, metadata=metadata, values={
        'volume_id': volume.id, 'project_id': volume.project_id, 'user_id': 'u1',
        'volume_size': volume.size, 'volume_type_id': volume.volume_type_id,
        'display_name': name, 'created_at': T0 + datetime.timedelta(minutes=minutes),
        **values})
    db_snapshots.MACHINE.reset(db, row_id=row.id, values={'status': 'available'})
    return row


def _names(client, project, query='', path='/v3/snapshots/detail', version='3.66'):
    resp = client.simulate_get(path, query_string=query, headers=_headers(project, version))
    assert resp.status_code == 200, resp.json
    return [s['name'] for s in resp.json['snapshots']]


def test_create_commits_the_quota_and_casts(db, client, rpc, project):
    volume = _volume(db, project, size=2)
    resp = client.simulate_post('/v3/snapshots', headers=_headers(project), json={
        'snapshot': {'volume_id': volume.id, 'name': 's', 'metadata': {'k': 'v'}}})
    assert resp.status_code == 202
    snapshot_id = resp.json['snapshot']['id']
    assert db_snapshots.get_metadata(db, snapshot_ids=[snapshot_id]) == {snapshot_id: {'k': 'v'}}
    assert usages(db, project)['snapshots'] == (1, 0)
    assert usages(db, project)['gigabytes'] == (4, 0)
    assert [call[0] for call in rpc.scheduler.calls] == ['create_snapshot']


def test_listing_filters_sort_and_pages(db, client, project):
    east, west = _volume(db, project, zone='east'), _volume(db, project, zone='west')
    _snapshot(db, east, 'alpha', 1, metadata={'tier': 'gold'})
    _snapshot(db, east, None, 2)
    _snapshot(db, west, 'beta', 3, metadata={'tier': 'silver'}, use_quota=False)
    assert _names(client, project) == ['beta', None, 'alpha']
    assert _names(client, project, "metadata={'tier': 'gold'}") == ['alpha']
    assert _names(client, project, 'availability_zone=west') == ['beta']
    assert _names(client, project, 'name~=et') == ['beta']
    assert _names(client, project, 'consumes_quota=false') == ['beta']
    # NULL names sort first ascending and last descending on every database.
    assert _names(client, project, 'sort=name:asc') == [None, 'alpha', 'beta']
    assert _names(client, project, 'sort=name:desc') == ['beta', 'alpha', None]
    pages, marker = [], None
    while True:
        query = 'sort=name:asc&limit=1' + (f'&marker={marker}' if marker else '')
        resp = client.simulate_get('/v3/snapshots', query_string=query,
                                   headers=_headers(project))
        pages.append([s['name'] for s in resp.json['snapshots']])
        if 'snapshots_links' not in resp.json or not resp.json['snapshots']:
            break
        marker = resp.json['snapshots'][-1]['id']
    assert pages == [[None], ['alpha'], ['beta'], []]
    resp = client.simulate_get('/v3/snapshots', query_string='with_count=true&limit=1',
                               headers=_headers(project))
    assert resp.json['count'] == 3


def test_metadata_merge_replace_and_delete(db, client, project):
    snapshot = _snapshot(db, _volume(db, project), 'm', 1, metadata={'a': '1'})
    url = f'/v3/snapshots/{snapshot.id}/metadata'
    headers = _headers(project)
    assert client.simulate_post(url, json={'metadata': {'b': '2'}}, headers=headers).json == {
        'metadata': {'a': '1', 'b': '2'}}
    assert client.simulate_put(url, json={'metadata': {'c': '3'}}, headers=headers).json == {
        'metadata': {'c': '3'}}
    assert client.simulate_put(f'{url}/c', json={'meta': {'c': '4'}},
                               headers=headers).json == {'meta': {'c': '4'}}
    assert client.simulate_delete(f'{url}/c', headers=headers).status_code == 200
    assert client.simulate_get(url, headers=headers).json == {'metadata': {}}
    assert client.simulate_delete(f'{url}/c', headers=headers).status_code == 404


def test_update_reset_and_force_delete(db, client, rpc, project):
    snapshot = _snapshot(db, _volume(db, project), 'old', 1)
    headers = _headers(project)
    resp = client.simulate_put(f'/v3/snapshots/{snapshot.id}', headers=headers,
                               json={'snapshot': {'name': 'new', 'description': 'd'}})
    assert (resp.json['snapshot']['name'], resp.json['snapshot']['description']) == ('new', 'd')
    url = f'/v3/snapshots/{snapshot.id}/action'
    assert client.simulate_post(url, json={'os-reset_status': {'status': 'creating'}},
                                headers=headers).status_code == 202
    assert client.simulate_post(url, json={'os-update_snapshot_status': {
        'status': 'available', 'progress': '100%'}}, headers=headers).status_code == 202
    assert client.simulate_post(url, json={'os-force_delete': {}},
                                headers=headers).status_code == 202
    assert db_snapshots.get(db, snapshot_id=snapshot.id).status == 'deleting'
    assert [call[0] for call in rpc.volume.calls] == ['delete_snapshot']
