"""GET /healthcheck of cinderlike-api against a real PostgreSQL / MariaDB and RabbitMQ: 200
while both answer (the text answer lists each check's reason, as oslo.middleware's does), 503
naming the one that does not (details with `[healthcheck] detailed`), and the disable_by_file
backend Cinder's api-paste configures."""

import json

import pytest
from falcon import testing

from cinderlike import conf as cl_conf
from cinderlike.api.app import create_app
from cinderlike.db.engine import Database
from tests.fixtures.database import fresh_database
from tests.functional.e2e.stack import free_port

pytestmark = pytest.mark.rabbit


@pytest.fixture(params=[pytest.param('postgresql', marks=pytest.mark.postgresql),
                        pytest.param('mysql', marks=pytest.mark.mysql)])
def db_url(request):
    with fresh_database(request.getfixturevalue(f'{request.param}_server_url')) as url:
        yield url


def _client(db_url, transport_url, **healthcheck):
    conf = cl_conf.new_conf()
    conf([])
    conf.set_override('auth_strategy', 'noauth')
    conf.set_override('transport_url', transport_url)
    for key, value in healthcheck.items():
        conf.set_override(key, value, group='healthcheck')
    db = Database(db_url)
    return testing.TestClient(create_app(conf, db=db)), db


def _detail(resp) -> dict:
    return {(r['reason']): r['details'] for r in json.loads(resp.text)['reasons']}


def test_healthy_with_database_and_broker(db_url, rabbit_url):
    client, db = _client(db_url, rabbit_url)
    resp = client.simulate_get('/healthcheck')
    assert (resp.status_code, resp.text) == (200, 'database reachable\nmessage broker reachable')
    assert client.simulate_head('/healthcheck').status_code == 204
    client, db = _client(db_url, rabbit_url, detailed=True)
    resp = client.simulate_get('/healthcheck', headers={'Accept': 'application/json'})
    assert resp.status_code == 200
    detail = _detail(resp)
    assert detail['database reachable'] == db.dialect
    assert detail['message broker reachable'].startswith('127.0.0.1:')
    # nothing else is served by the healthcheck
    assert client.simulate_get('/v3/', headers={'X-Auth-Token': 'admin:admin'}).json[
        'versions'][0]['id'] == 'v3.0'


def test_unreachable_broker_is_503_named(db_url):
    port = free_port()
    client, _ = _client(db_url, f'rabbit://guest:guest@127.0.0.1:{port}/', detailed=True,
                        check_timeout=1)
    resp = client.simulate_get('/healthcheck', headers={'Accept': 'application/json'})
    assert resp.status_code == 503
    detail = _detail(resp)
    assert 'database reachable' in detail
    assert f'127.0.0.1:{port}' in detail['message broker unreachable']


def test_unreachable_database_is_503(rabbit_url):
    port = free_port()
    client, _ = _client(f'postgresql+psycopg2://nobody@127.0.0.1:{port}/none', rabbit_url)
    resp = client.simulate_get('/healthcheck')
    assert (resp.status_code, resp.text) == (503, 'database unreachable\nmessage broker reachable')


def test_disable_by_file(db_url, rabbit_url, tmp_path):
    marker = tmp_path / 'healthcheck_disable'
    client, _ = _client(db_url, rabbit_url, backends=['disable_by_file'],
                        disable_by_file_path=str(marker))
    assert client.simulate_get('/healthcheck').status_code == 200
    marker.touch()
    resp = client.simulate_get('/healthcheck')
    assert (resp.status_code, resp.text.splitlines()[0]) == (503, 'DISABLED BY FILE')
