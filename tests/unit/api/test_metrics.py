"""api/metrics.py: request latency counted by method, route template and status, and the
multiprocess directory of one API daemon run."""

import os

import prometheus_client
from falcon import testing

from cinderlike.api import metrics as api_metrics
from cinderlike.api.app import create_app
from tests.unit.api.type_fixtures import admin


def _count(registry, method, route, status) -> float:
    return registry.get_sample_value('cinderlike_api_request_duration_seconds_count', {
        'method': method, 'route': route, 'status': status}) or 0


def test_requests_are_counted_by_route_template_and_status(conf, seeded):
    registry = prometheus_client.CollectorRegistry()
    client = testing.TestClient(create_app(
        conf, db=seeded, metrics=api_metrics.RequestMetrics(registry=registry)))
    for _ in range(3):
        assert client.simulate_get('/v3/admin/types', headers=admin()).status_code == 200
    assert client.simulate_get('/v3/admin/types/nope', headers=admin()).status_code == 404
    assert client.simulate_get('/v3/nowhere/at/all', headers=admin()).status_code == 404
    assert _count(registry, 'GET', '/v3/{project_id}/types', '200') == 3
    assert _count(registry, 'GET', '/v3/{project_id}/types/{type_id}', '404') == 1
    assert _count(registry, 'GET', api_metrics.UNROUTED, '404') == 1


def test_the_directory_is_the_runs_own_and_orphans_go(tmp_path, monkeypatch):
    monkeypatch.delenv(api_metrics.ENV, raising=False)
    orphan = tmp_path / f'{api_metrics.PREFIX}999999999-x'
    orphan.mkdir()
    shared = api_metrics.SharedDirectory(str(tmp_path))
    assert os.environ[api_metrics.ENV] == shared.path
    assert not orphan.exists() and os.path.isdir(shared.path)
    assert os.path.basename(shared.path).startswith(f'{api_metrics.PREFIX}{os.getpid()}-')
    shared.remove()
    assert not os.path.exists(shared.path) and api_metrics.ENV not in os.environ
