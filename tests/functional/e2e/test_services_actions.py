"""os-services management on the four daemons (RabbitMQ, PostgreSQL then MariaDB), driven by
the `cinder` CLI: set-log / get-log reach each daemon over RPC, freeze stops placements and
mutations on a backend until thaw, failover_host gets Cinder's refusal, backend_state (3.49)
comes from the schedulers' pools. (`openstack volume service` needs Keystone:
tests/functional/keystone/test_service_cli.py.)"""

import pathlib
import shutil
import subprocess
import sys

import pytest

from tests.functional.e2e.stack import PROJECT, deployed, wait_for

pytestmark = pytest.mark.rabbit

STARTUP = 90
SETTLE = 60
V = f'/v3/{PROJECT}'
BIN = pathlib.Path(sys.executable).parent


@pytest.fixture(scope='module', params=[
    pytest.param('postgresql', marks=pytest.mark.postgresql),
    pytest.param('mysql', marks=pytest.mark.mysql)])
def stack(request, tmp_path_factory, rabbit_url):
    with deployed(tmp_path_factory.mktemp(f'services-{request.param}'),
                  server_url=request.getfixturevalue(f'{request.param}_server_url'),
                  transport_url=rabbit_url, timeout=STARTUP) as stack:
        yield stack


def _cli(name):
    path = shutil.which(name, path=str(BIN))
    # the clients are in the test extra: missing means a broken install, not a skip.
    assert path is not None, f'{name} CLI not found: pip install -e .[test]'
    return path


@pytest.fixture(scope='module')
def cinder(stack):
    def run(*args, version='3.32', check=True):
        done = subprocess.run(
            [_cli('cinder'), '--os-auth-type', 'noauth', '--os-user-id', 'admin',
             '--os-project-id', PROJECT, '--os-endpoint', f'{stack.api_url}/v3',
             '--os-volume-api-version', version, *args],
            capture_output=True, text=True, timeout=120)
        if check:
            assert done.returncode == 0, f'{args}: {done.stderr}'
        return done
    return run


def _levels(stack, prefix, binary='*'):
    answer = stack.ok('PUT', f'{V}/os-services/get-log', {'binary': binary, 'prefix': prefix},
                      expect=200, version='3.32')
    return {(entry['binary'], entry['host']): entry['levels']
            for entry in answer['log_levels']}


def test_set_log_and_get_log_reach_every_daemon(stack, cinder):
    prefix = 'cinderlike'
    before = _levels(stack, prefix)
    assert set(before) == {('cinder-api', stack.host)} | stack.expected_services()
    assert all(levels and set(levels.values()) == {'INFO'} for levels in before.values()), [
        (key, levels) for key, levels in before.items() if set(levels.values()) != {'INFO'}]

    cinder('service-set-log', '--binary', 'cinder-volume', '--prefix', prefix, 'DEBUG')
    volumes = {key for key in before if key[0] == 'cinder-volume'}
    # set-log is a cast: the volume daemons apply it when they take the message.
    wait_for(lambda: all(set(_levels(stack, prefix)[key].values()) == {'DEBUG'}
                         for key in volumes), timeout=SETTLE, what='DEBUG on the volumes')
    after = _levels(stack, prefix)
    assert all(set(after[key].values()) == {'INFO'} for key in set(before) - volumes)

    shown = cinder('service-get-log', '--binary', 'cinder-volume', '--prefix', prefix).stdout
    for _, host in volumes:
        assert host in shown
    assert 'DEBUG' in shown and 'cinder-scheduler' not in shown

    cinder('service-set-log', '--prefix', prefix, 'WARNING')
    wait_for(lambda: all(set(levels.values()) == {'WARNING'}
                         for levels in _levels(stack, prefix).values()),
             timeout=SETTLE, what='WARNING everywhere')
    cinder('service-set-log', '--prefix', prefix, 'INFO')

    # cinderclient refuses a bad level itself; the API's answer to one:
    assert stack.request('PUT', f'{V}/os-services/set-log', {'level': 'LOUD'},
                         version='3.32') == (400, {'badRequest': {
                             'code': 400,
                             'message': 'Invalid input received: LOUD is not a valid log level.'}})
    assert all(set(levels.values()) == {'INFO'} for levels in _levels(stack, prefix).values())


def _service(stack, binary, host):
    return stack.services()[(binary, host)]


def _volume(stack, name, backend):
    stack.ok('POST', f'{V}/types', {'volume_type': {
        'name': name, 'extra_specs': {'volume_backend_name': backend}}}, expect=200)
    volume = stack.ok('POST', f'{V}/volumes', {'volume': {'size': 1, 'volume_type': name}},
                      expect=202)['volume']
    return wait_for(lambda: (v := stack.get(f'{V}/volumes/{volume["id"]}')[1]['volume'])
                    ['status'] not in ('creating',) and v, timeout=SETTLE,
                    what=f'volume {volume["id"]} to settle')


def test_freeze_refuses_management_until_thaw(stack, cinder):
    host = f'{stack.host}@b1'
    kept = _volume(stack, 'frozen-b1', 'b1')
    assert kept['status'] == 'available'

    cinder('freeze-host', host)
    row = _service(stack, 'cinder-volume', host)
    assert (row['frozen'], row['status'], row['disabled_reason']) == (True, 'disabled', 'frozen')
    listed = cinder('service-list', '--binary', 'cinder-volume', '--withreplication').stdout
    assert 'frozen' in listed and 'disabled' in listed

    status, body = stack.request('DELETE', f'{V}/volumes/{kept["id"]}')
    assert (status, body) == (400, {'badRequest': {'code': 400, 'message': (
        'Invalid input received: Modification operations are not allowed on frozen storage '
        'backends.')}})
    status, body = stack.request('POST', f'{V}/snapshots',
                                 {'snapshot': {'volume_id': kept['id']}})
    assert status == 400 and 'frozen storage backends' in body['badRequest']['message']
    assert _volume(stack, 'frozen-b1-new', 'b1')['status'] == 'error'
    again = cinder('freeze-host', host, check=False)
    assert again.returncode != 0
    assert f"frozen in ['{host}'] must be False to failover." in again.stderr

    cinder('thaw-host', host)
    row = _service(stack, 'cinder-volume', host)
    assert (row['frozen'], row['status']) == (False, 'enabled')
    wait_for(lambda: host + '#b1' in stack.pool_names(), timeout=SETTLE,
             what='the thawed pool to be placeable')
    assert _volume(stack, 'thawed-b1', 'b1')['status'] == 'available'
    stack.ok('DELETE', f'{V}/volumes/{kept["id"]}', expect=202)


def test_failover_host_is_refused_for_a_backend_without_replication(stack, cinder):
    host = f'{stack.host}@b2'
    refused = cinder('failover-host', host, check=False)
    assert refused.returncode != 0
    assert (f"replication_status in ['{host}'] must be ['enabled', 'failed-over'] and must be "
            'up to failover.') in refused.stderr
    assert _service(stack, 'cinder-volume', host)['replication_status'] == 'not-capable'
    status, body = stack.request('PUT', f'{V}/os-services/failover_host', {'host': 'nowhere'})
    assert (status, body) == (400, {'badRequest': {
        'code': 400, 'message': 'No service found with host=nowhere'}})


def test_backend_state_from_the_schedulers_pools(stack, cinder):
    status, body = stack.request('GET', f'{V}/os-services', version='3.49')
    assert status == 200
    states = {(s['binary'], s['host']): s.get('backend_state', 'absent')
              for s in body['services']}
    assert states[('cinder-volume', f'{stack.host}@b1')] == 'up'
    assert states[('cinder-scheduler', stack.host)] == 'absent'
    shown = cinder('service-list', '--binary', 'cinder-volume', version='3.49').stdout
    assert 'Backend State' in shown and ' up ' in shown
