"""Aggregates of db/ are plain Python numbers on real PostgreSQL and MariaDB.

MariaDB's driver returns SUM() as a Decimal, which the API's JSON renderer cannot encode:
GET /volumes/summary answered 500 there. The API is built over the real database here.
"""

import uuid

import pytest
from falcon import testing

from cinderlike import conf as cl_conf
from cinderlike.api.app import create_app
from cinderlike.db import placements as db_placements
from cinderlike.db import quotas as db_quotas
from cinderlike.db import volumes as db_volumes


@pytest.fixture
def client(db):
    config = cl_conf.new_conf()
    config([])
    config.set_override('auth_strategy', 'noauth')
    return testing.TestClient(create_app(config, db=db))


@pytest.fixture
def project():
    return uuid.uuid4().hex


def _volume(db, project, size, host='node@fake#pool', metadata=None):
    return db_volumes.create(db, metadata=metadata, values={
        'status': 'available', 'size': size, 'host': host, 'project_id': project,
        'user_id': 'u1', 'volume_type_id': 'type-1', 'attach_status': 'detached'})


def _summary(client, project, version='3.36', query=None):
    return client.simulate_get('/v3/volumes/summary', query_string=query, headers={
        'X-Auth-Token': f'admin:{project}', 'OpenStack-API-Version': f'volume {version}'})


def test_summary_through_the_api(db, client, project):
    _volume(db, project, 1, metadata={'tier': 'gold'})
    _volume(db, project, 2, metadata={'tier': 'silver', 'k': 'v'})
    _volume(db, project, 40)
    resp = _summary(client, project)
    assert resp.status_code == 200, resp.text
    assert resp.json == {'volume-summary': {
        'total_size': 43, 'total_count': 3,
        'metadata': {'k': ['v'], 'tier': ['gold', 'silver']}}}
    assert _summary(client, project, version='3.12').json == {
        'volume-summary': {'total_size': 43, 'total_count': 3}}


def test_summary_of_no_volumes_is_zero(client, project):
    resp = _summary(client, project)
    assert (resp.status_code, resp.json) == (200, {'volume-summary': {
        'total_size': 0, 'total_count': 0, 'metadata': {}}})


def test_summary_all_tenants_counts_every_project(db, client, project):
    other = uuid.uuid4().hex
    _volume(db, project, 3)
    _volume(db, other, 4)
    mine = _summary(client, project).json['volume-summary']
    every = _summary(client, project, query='all_tenants=1').json['volume-summary']
    assert (mine['total_size'], mine['total_count']) == (3, 1)
    assert every['total_size'] >= 7 and every['total_count'] >= 2


def test_every_aggregate_is_a_plain_number(db, project):
    host = f'{project}@fake#pool'
    _volume(db, project, 5, host=host)
    _volume(db, project, 6, host=host)
    count, size, _metadata = db_volumes.summary(db, project_id=project)
    assert (count, size) == (2, 11) and type(count) is int and type(size) is int
    matched = db_volumes.count(db, project_id=project)
    assert matched == 2 and type(matched) is int
    with db.reader() as s:
        for resource, want in (('gigabytes', 11), ('volumes', 2), ('backup_gigabytes', 0)):
            used = db_quotas.count_in_use(s, project_id=project, resource=resource, type_ids={})
            assert used == want and type(used) is int, resource
    placed = db_placements.counts(db, hosts=[host])
    assert placed == {host: 2} and type(placed[host]) is int
