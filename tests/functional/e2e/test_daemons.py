"""The four daemons as separate processes on RabbitMQ and PostgreSQL, then MariaDB.

Services come up under Cinder's binary names, a killed backend worker is restarted by its
parent, a killed volume daemon shows down after service_down_time, SIGHUP applies a changed
log level, SIGTERM stops cleanly.
"""

import os
import signal

import pytest

from tests.fixtures.database import fresh_database
from tests.functional.e2e.stack import Stack, wait_for

pytestmark = pytest.mark.rabbit

STARTUP = 90  # seconds for four Python daemons to import, connect and register


@pytest.fixture(params=[pytest.param('postgresql', marks=pytest.mark.postgresql),
                        pytest.param('mysql', marks=pytest.mark.mysql)])
def db_url(request):
    with fresh_database(request.getfixturevalue(f'{request.param}_server_url')) as url:
        yield url


@pytest.fixture
def stack(tmp_path, db_url, rabbit_url):
    stack = Stack(tmp_path, db_url=db_url, transport_url=rabbit_url)
    stack.run('cinderlike-manage', 'db', 'sync')
    yield stack
    stack.close()


def _start_all_and_wait_up(stack):
    stack.start_all(timeout=STARTUP)
    expected = stack.expected_services()

    def all_beating():
        rows = stack.services()
        return all(rows[key]['state'] == 'up' and rows[key]['updated_at'] for key in expected)
    # registered rows are up at once; heartbeats must follow within 2 x report_interval
    wait_for(all_beating, timeout=2 * stack.report_interval + 1,
             what='every service to heartbeat')
    return stack.services()


def _volume_pids(daemon):
    """host@backend -> pid of the newest worker that logged its start."""
    return {host: pid for pid, binary, host in daemon.started_services()
            if binary == 'cinder-volume'}


def test_services_up_worker_restarted_and_sigterm_is_clean(stack):
    rows = _start_all_and_wait_up(stack)
    # the API registers no row; nothing else but the three daemons' services is listed
    assert set(rows) == stack.expected_services()

    volume = stack.daemons['volume']
    victim = f'{stack.host}@b1'
    old_pid = _volume_pids(volume)[victim]
    os.kill(old_pid, signal.SIGKILL)
    new_pid = wait_for(lambda: _volume_pids(volume)[victim] != old_pid
                       and _volume_pids(volume)[victim], timeout=60,
                       what=f'the parent to restart the worker of {victim}')
    assert volume.proc.poll() is None
    beat_at_restart = stack.services()[('cinder-volume', victim)]['updated_at']
    wait_for(lambda: (stack.services()[('cinder-volume', victim)]['updated_at']
                      != beat_at_restart), timeout=30,
             what=f'the new worker {new_pid} to heartbeat')
    assert stack.services()[('cinder-volume', victim)]['state'] == 'up'

    _sighup_applies_debug(stack, stack.daemons['scheduler'])

    for name in ('volume', 'scheduler', 'backup', 'api'):
        daemon = stack.daemons[name]
        assert daemon.stop() == 0, daemon.log()[-3000:]
        assert 'Traceback' not in daemon.log(), daemon.log()[-3000:]
    for backend in stack.backends:
        assert f'Stopped cinder-volume service on {stack.host}@{backend}' in volume.log()
    assert f'Stopped cinder-scheduler service on {stack.host}' in stack.daemons[
        'scheduler'].log()
    assert f'Stopped cinder-backup service on {stack.host}' in stack.daemons['backup'].log()


def _sighup_applies_debug(stack, daemon):
    """SIGHUP: the parent re-reads the file and the new worker logs at the new level."""
    assert ' DEBUG ' not in daemon.log()
    stack.update_config(debug=True)
    daemon.proc.send_signal(signal.SIGHUP)
    wait_for(lambda: ' DEBUG cinderlike.' in daemon.log(), timeout=60,
             what='DEBUG logging after SIGHUP')
    assert daemon.proc.poll() is None
    wait_for(lambda: stack.services()[('cinder-scheduler', stack.host)]['state'] == 'up',
             timeout=30, what='the scheduler to be up after SIGHUP')


def _group_alive(pgid) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def test_killed_volume_daemon_is_shown_down(stack):
    _start_all_and_wait_up(stack)
    volume = stack.daemons['volume']
    volume.kill_group()
    wait_for(lambda: not _group_alive(volume.proc.pid), timeout=30,
             what='the volume daemon and its workers to be reaped')

    volumes = {('cinder-volume', f'{stack.host}@{b}') for b in stack.backends}

    def volumes_down():
        rows = stack.services()
        return all(rows[key]['state'] == 'down' for key in volumes)
    wait_for(volumes_down, timeout=stack.service_down_time + 3 * stack.report_interval + 5,
             what='the killed volume services to be shown down')
    rows = stack.services()
    assert rows[('cinder-scheduler', stack.host)]['state'] == 'up'
    assert rows[('cinder-backup', stack.host)]['state'] == 'up'
