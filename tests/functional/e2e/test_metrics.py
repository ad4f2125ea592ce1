"""Prometheus metrics of the API, scheduler, volume (one port per backend) and backup daemons
on RabbitMQ and PostgreSQL: after a workload, each daemon's counters moved by what it handled
(API requests by route template and status over two gunicorn workers, flow durations),
placements and a failure for want of a backend are counted, heartbeats are fresh, and the
pools' claimed capacity is what was placed."""

import urllib.request

import pytest
from prometheus_client.parser import text_string_to_metric_families

from cinderlike.api import metrics as api_metrics
from tests.functional.e2e.stack import PROJECT, deployed, free_port, wait_for

pytestmark = [pytest.mark.rabbit, pytest.mark.postgresql]

V = f'/v3/{PROJECT}'
SETTLE = 60


def _scrape(port) -> dict[tuple, float]:
    """{(sample name, sorted labels): value} of GET /metrics on *port*."""
    with urllib.request.urlopen(f'http://127.0.0.1:{port}/metrics', timeout=10) as answer:
        text = answer.read().decode()
    return {(sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in text_string_to_metric_families(text) for sample in family.samples}


def _rpc(samples, method, outcome='ok') -> float:
    return samples.get(('cinderlike_rpc_messages_total',
                        (('method', method), ('outcome', outcome))), 0)


def _create(stack, backend, size):
    volume = stack.ok('POST', f'{V}/volumes', {'volume': {
        'size': size, 'volume_type': f'on-{backend}'}}, expect=202)['volume']
    wait_for(lambda: stack.get(f'{V}/volumes/{volume["id"]}')[1]['volume']['status']
             == 'available', timeout=SETTLE, what=f'volume {volume["id"]}')
    return volume['id']


def test_counters_move_by_the_workload(tmp_path, postgresql_server_url, rabbit_url):
    ports = {'scheduler': free_port(), 'volume': free_port(), 'backup': free_port()}
    # the second backend's worker serves on volume_port + 1
    while ports['volume'] + 1 in ports.values():
        ports['volume'] = free_port()

    def configure(stack):
        stack.update_config('metrics', scheduler_port=ports['scheduler'],
                            volume_port=ports['volume'], backup_port=ports['backup'])

    with deployed(tmp_path, server_url=postgresql_server_url, transport_url=rabbit_url,
                  configure=configure) as stack:
        for backend in ('b1', 'b2'):
            stack.ok('POST', f'{V}/types', {'volume_type': {
                'name': f'on-{backend}', 'extra_specs': {'volume_backend_name': backend}}},
                expect=200)
        b1, b2 = ports['volume'], ports['volume'] + 1
        before = {name: _scrape(port) for name, port in
                  (('scheduler', ports['scheduler']), ('b1', b1), ('b2', b2))}

        kept = _create(stack, 'b1', 2)
        gone = _create(stack, 'b1', 1)
        _create(stack, 'b2', 3)
        stack.ok('DELETE', f'{V}/volumes/{gone}', expect=202)
        wait_for(lambda: stack.get(f'{V}/volumes/{gone}')[0] == 404, timeout=SETTLE,
                 what=f'volume {gone} deleted')

        stack.ok('POST', f'{V}/types', {'volume_type': {
            'name': 'on-nowhere', 'extra_specs': {'volume_backend_name': 'nowhere'}}},
            expect=200)
        failed = stack.ok('POST', f'{V}/volumes', {'volume': {
            'size': 1, 'volume_type': 'on-nowhere'}}, expect=202)['volume']['id']
        wait_for(lambda: stack.get(f'{V}/volumes/{failed}')[1]['volume']['status'] == 'error',
                 timeout=SETTLE, what=f'volume {failed} to find no backend')

        scheduler, on_b1, on_b2 = (_scrape(ports['scheduler']), _scrape(b1), _scrape(b2))

        def placements(samples, outcome):
            return samples.get(('cinderlike_placements_total', (('outcome', outcome),)), 0)
        assert placements(scheduler, 'placed') - placements(before['scheduler'], 'placed') == 3
        assert placements(scheduler, 'no_valid_backend') - placements(
            before['scheduler'], 'no_valid_backend') == 1
        assert _rpc(scheduler, 'create_volume') - _rpc(before['scheduler'], 'create_volume') == 4
        assert _rpc(on_b1, 'create_volume') - _rpc(before['b1'], 'create_volume') == 2
        assert _rpc(on_b2, 'create_volume') - _rpc(before['b2'], 'create_volume') == 1
        assert _rpc(on_b1, 'delete_volume') - _rpc(before['b1'], 'delete_volume') == 1
        assert _rpc(on_b2, 'delete_volume') == _rpc(before['b2'], 'delete_volume')
        # capability fanouts arrive on their own schedule: some were handled by now
        assert _rpc(scheduler, 'update_service_capabilities') >= 1
        before_backup = _scrape(ports['backup'])
        stack.ok('PUT', f'{V}/os-services/get-log', {'binary': 'cinder-backup'}, expect=200,
                 version='3.32')
        backup = _scrape(ports['backup'])
        assert _rpc(backup, 'get_log_levels') - _rpc(before_backup, 'get_log_levels') == 1
        for samples in (scheduler, on_b1, on_b2, backup):
            age = samples[('cinderlike_heartbeat_age_seconds', ())]
            assert 0 <= age < 60  # beats every report_interval (1 s here)
        claimed = {labels[0][1]: value for (name, labels), value in scheduler.items()
                   if name == 'cinderlike_pool_claimed_gb'}
        assert claimed == {f'{stack.host}@b1#b1': 2, f'{stack.host}@b2#b2': 3}
        assert (('cinderlike_pool_free_gb', (('pool', f'{stack.host}@b1#b1'),))) in scheduler
        assert stack.get(f'{V}/volumes/{kept}')[0] == 200


def _count(samples, name, **labels) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0)


def _requests(samples, method, route, status) -> float:
    return _count(samples, 'cinderlike_api_request_duration_seconds_count', method=method,
                  route=route, status=status)


def _flows(samples, flow, outcome='ok') -> float:
    return _count(samples, 'cinderlike_flow_duration_seconds_count', flow=flow,
                  outcome=outcome)


def test_api_latency_by_route_over_workers_and_flow_durations(tmp_path, postgresql_server_url,
                                                              rabbit_url):
    """Two gunicorn workers share one multiprocess directory: the API master's scrape sums
    them by route template and status; the scheduler and volume daemons time their flows."""
    ports = {'api': free_port(), 'scheduler': free_port(), 'volume': free_port()}
    while ports['volume'] + 1 in ports.values():
        ports['volume'] = free_port()

    def configure(stack):
        stack.update_config('metrics', api_port=ports['api'], scheduler_port=ports['scheduler'],
                            volume_port=ports['volume'])
        stack.update_config(osapi_volume_workers=2)

    with deployed(tmp_path, server_url=postgresql_server_url, transport_url=rabbit_url,
                  configure=configure) as stack:
        directory = _multiproc_dir(stack)
        assert directory is not None and any(directory.iterdir())
        before = {name: _scrape(port) for name, port in ports.items()}
        for _ in range(7):
            stack.ok('GET', f'{V}/types', expect=200)
        for _ in range(3):
            assert stack.request('GET', f'{V}/types/no-such-type')[0] == 404
        stack.ok('POST', f'{V}/types', {'volume_type': {
            'name': 'on-b1', 'extra_specs': {'volume_backend_name': 'b1'}}}, expect=200)
        created = _create(stack, 'b1', 1)
        api, scheduler, b1 = (_scrape(ports['api']), _scrape(ports['scheduler']),
                              _scrape(ports['volume']))

        def moved(method, route, status):
            return (_requests(api, method, route, status)
                    - _requests(before['api'], method, route, status))
        assert moved('GET', '/v3/{project_id}/types', '200') == 7
        assert moved('GET', '/v3/{project_id}/types/{type_id}', '404') == 3
        assert moved('POST', '/v3/{project_id}/types', '200') == 1
        assert moved('POST', '/v3/{project_id}/volumes', '202') == 1
        routes = {dict(labels)['route'] for (name, labels) in api
                  if name == 'cinderlike_api_request_duration_seconds_count'}
        assert not any(created in route or 'no-such-type' in route for route in routes)
        assert _flows(scheduler, 'volume_create_scheduler') - _flows(
            before['scheduler'], 'volume_create_scheduler') == 1
        assert _flows(b1, 'volume_create_manager') - _flows(
            before['volume'], 'volume_create_manager') == 1
        # NOTE(cleanup): the daemon removes its directory when it stops.
        assert stack.daemons['api'].stop() == 0
        assert not directory.exists()



def _multiproc_dir(stack):
    """The API daemon's multiprocess directory under its state_path."""
    found = list((stack.workdir / 'state').glob(f'{api_metrics.PREFIX}*'))
    return found[0] if len(found) == 1 else None
