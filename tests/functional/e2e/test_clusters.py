"""Active-Active end to end: two volume services in one cluster for one `file` backend on ONE
shared directory, tooz on Redis, RabbitMQ and PostgreSQL (then MariaDB); the API, a scheduler.

Creates and deletes go to the cluster's queue, so both members take some: the member that
creates a volume becomes its host (Cinder's _set_resource_host), which tells them apart.
"""

import time

import pytest

from cinderlike.scheduler import host_manager
from tests.functional.e2e.stack import PROJECT, deployed, wait_for

pytestmark = [pytest.mark.rabbit, pytest.mark.redis]

STARTUP = 90
SETTLE = 60
CLUSTER = 'aa'
BACKEND = 'shared'
V = f'/v3/{PROJECT}'
COUNT = 8  # under the default quota of 10 volumes


def _start_two_members(stack):
    stack.start('scheduler')
    stack.start('volume')
    stack.start('volume', label='volume-2', host=f'{stack.host}-m2')
    stack.start('api')
    stack.wait_for_api(timeout=STARTUP)
    pool = f'{CLUSTER}@{BACKEND}#{BACKEND}'
    wait_for(lambda: pool in stack.pool_names(), timeout=STARTUP,
             what=f'the scheduler to know the cluster pool {pool}')
    # NOTE(startup): the pool is known from the first member's report; on a loaded machine
    # the second may not have registered its service yet.
    wait_for(lambda: _up_members(stack) == _members(stack), timeout=STARTUP,
             what='both members to register their services')


@pytest.fixture(scope='module', params=[
    pytest.param('postgresql', marks=pytest.mark.postgresql),
    pytest.param('mysql', marks=pytest.mark.mysql)])
def stack(request, tmp_path_factory, rabbit_url, redis_url):
    def configure(stack):
        stack.update_config(cluster=CLUSTER)
        stack.update_config('coordination', backend_url=redis_url)
        stack.update_config(BACKEND, volume_driver='file',
                            file_volume_directory=stack.workdir / BACKEND)

    with deployed(tmp_path_factory.mktemp(f'clusters-{request.param}'),
                  server_url=request.getfixturevalue(f'{request.param}_server_url'),
                  transport_url=rabbit_url, backends=(BACKEND,), configure=configure,
                  start=_start_two_members) as stack:
        yield stack


def _members(stack):
    return {f'{stack.host}@{BACKEND}', f'{stack.host}-m2@{BACKEND}'}


def _up_members(stack):
    services = stack.ok('GET', f'{V}/os-services?binary=cinder-volume', expect=200,
                        version='3.7')['services']
    return {s['host'] for s in services if s['state'] == 'up'}


def _volume(stack, volume_id):
    return stack.ok('GET', f'{V}/volumes/{volume_id}', expect=200, version='3.61')['volume']


def _available(stack, volume_id):
    def steady():
        volume = _volume(stack, volume_id)
        return volume if volume['status'] != 'creating' else None
    volume = wait_for(steady, timeout=SETTLE, what=f'volume {volume_id} to be created')
    assert volume['status'] == 'available', volume
    return volume


def test_the_cluster_is_up_with_two_hosts_and_services_show_it(stack):
    clusters = stack.ok('GET', f'{V}/clusters/detail', expect=200, version='3.7')['clusters']
    assert [(c['name'], c['binary'], c['state'], c['status'], c['num_hosts'],
             c['num_down_hosts']) for c in clusters] == [
        (f'{CLUSTER}@{BACKEND}', 'cinder-volume', 'up', 'enabled', 2, 0)]
    services = stack.ok('GET', f'{V}/os-services?binary=cinder-volume', expect=200,
                        version='3.7')['services']
    assert {(s['host'], s['cluster'], s['state']) for s in services} == {
        (host, f'{CLUSTER}@{BACKEND}', 'up') for host in _members(stack)}
    shown = stack.ok('GET', f'{V}/clusters/{CLUSTER}@{BACKEND}', expect=200,
                     version='3.7')['cluster']
    assert (shown['state'], shown['num_hosts']) == ('up', 2)


def test_creates_and_deletes_are_shared_by_both_members(stack):
    created = [stack.ok('POST', f'{V}/volumes', {'volume': {'size': 1, 'name': f'aa-{n}'}},
                        expect=202)['volume'] for n in range(COUNT)]
    volumes = [_available(stack, v['id']) for v in created]
    assert {v['cluster_name'] for v in volumes} == {f'{CLUSTER}@{BACKEND}#{BACKEND}'}
    hosts = {v['os-vol-host-attr:host'].partition('#')[0] for v in volumes}
    assert hosts == _members(stack), 'both members must have taken creates'
    directory = stack.workdir / BACKEND
    assert {p.name for p in directory.iterdir()} >= {f'volume-{v["id"]}' for v in volumes}

    for volume in volumes:
        stack.ok('DELETE', f'{V}/volumes/{volume["id"]}', expect=202)
    for volume in volumes:
        wait_for(lambda v=volume: stack.request('GET', f'{V}/volumes/{v["id"]}')[0] == 404,
                 timeout=SETTLE, what=f'volume {volume["id"]} to be deleted')
        assert not (directory / f'volume-{volume["id"]}').exists()
    assert stack.run('cinderlike-manage', 'cluster', 'list').stdout.splitlines()[1].split()[:4] \
        == [f'{CLUSTER}@{BACKEND}', 'cinder-volume', 'enabled', ':-)']


def test_a_disabled_cluster_takes_no_new_volumes(stack):
    body = {'name': f'{CLUSTER}@{BACKEND}', 'disabled_reason': 'maintenance'}
    stack.ok('PUT', f'{V}/clusters/disable', body, expect=200, version='3.7')
    # NOTE(cache): the scheduler re-reads services rows at most SERVICES_TTL after a change.
    time.sleep(host_manager.SERVICES_TTL + 0.5)
    try:
        volume = stack.ok('POST', f'{V}/volumes', {'volume': {'size': 1}}, expect=202)['volume']
        settled = wait_for(lambda: (v := _volume(stack, volume['id']))['status'] != 'creating'
                           and v, timeout=SETTLE, what='the create to fail')
        assert settled['status'] == 'error'
    finally:
        stack.ok('PUT', f'{V}/clusters/enable', {'name': f'{CLUSTER}@{BACKEND}'},
                 expect=200, version='3.7')
