"""A database outage under the four daemons: a private PostgreSQL (initdb/pg_ctl, its own
port) is stopped while they run. The API answers 503 with Cinder's body meanwhile, the
daemons keep running, and once the server is back they serve creates and deletes again
without a restart."""

import pytest

from cinderlike.api import faults
from tests.fixtures import outage
from tests.functional.e2e.stack import PROJECT, deployed, wait_for

pytestmark = [pytest.mark.rabbit, pytest.mark.postgresql]

V = f'/v3/{PROJECT}'
DATABASE_DOWN = {'serviceUnavailable': {'code': 503, 'message': faults.DATABASE_DOWN}}


def _settles(stack, volume_id, wanted):
    def steady():
        status = stack.ok('GET', f'{V}/volumes/{volume_id}', expect=200)['volume']['status']
        return status if status not in ('creating', 'deleting') else None
    assert wait_for(steady, timeout=120, what=f'volume {volume_id} to settle') == wanted


def test_the_daemons_ride_out_a_database_outage(tmp_path, rabbit_url):
    assert outage.postgres_tools(), 'initdb, pg_ctl and runuser are needed'
    with outage.PrivatePostgres() as server, deployed(
            tmp_path, server_url=server.url, transport_url=rabbit_url, backends=('b1',),
            configure=lambda stack: stack.update_config('database', connect_timeout=2),
            timeout=90) as stack:
        first = stack.ok('POST', f'{V}/volumes', {'volume': {'size': 1}}, expect=202)['volume']
        _settles(stack, first['id'], 'available')

        server.stop()
        assert stack.request('POST', f'{V}/volumes', {'volume': {'size': 1}}) == (
            503, DATABASE_DOWN)
        assert stack.request('GET', f'{V}/volumes/detail') == (503, DATABASE_DOWN)
        # The volume service notices (its heartbeat cannot be written) and keeps running.
        wait_for(lambda: 'database is unreachable' in stack.daemons['volume'].log(),
                 timeout=60, what='the volume service to miss a heartbeat')
        server.start()

        wait_for(lambda: stack.request('GET', f'{V}/volumes')[0] == 200, timeout=60,
                 what='the API to read the database again')
        # NOTE(down): an outage longer than service_down_time (4 s here) shows the volume
        # service down until its next heartbeat; a create before it is NoValidBackend.
        wait_for(lambda: stack.services()[('cinder-volume', f'{stack.host}@b1')]['state']
                 == 'up', timeout=60, what='the volume service to heartbeat again')
        second = stack.ok('POST', f'{V}/volumes', {'volume': {'size': 1}}, expect=202)['volume']
        _settles(stack, second['id'], 'available')
        for volume in (first, second):
            stack.ok('DELETE', f'{V}/volumes/{volume["id"]}', expect=202)
        wait_for(lambda: not stack.ok('GET', f'{V}/volumes', expect=200)['volumes'],
                 timeout=120, what='both volumes to be deleted')
        assert all(daemon.proc.poll() is None for daemon in stack.daemons.values())
