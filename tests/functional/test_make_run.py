"""`make run` from a fresh clone, as a user would: the embedded default answers and is up.

It builds its own .venv in the clone (pip's cache makes that quicker after the first run).
On a developer's machine `make test PYTEST_ARGS='-k "not make_run"'` leaves it out.
"""

import os
import pathlib
import signal
import socket
import subprocess
import time

import pytest

from tests.functional.e2e.stack import get_json

ROOT = pathlib.Path(__file__).resolve().parents[2]
PORT = 8776
BASE = f'http://127.0.0.1:{PORT}'
READY_WITHIN = 600  # seconds: venv creation and pip install (warm cache), then start-up
EXPECTED_BINARIES = {'cinder-scheduler', 'cinder-volume', 'cinder-backup'}

def _port_in_use() -> bool:
    try:
        with socket.create_connection(('127.0.0.1', PORT), timeout=1):
            return True
    except OSError:
        return False


def _get(path):
    """(status, JSON body) of GET *path*, or None while nothing answers."""
    return get_json(BASE + path, token='admin:admin')


def _states(body) -> dict:
    return {svc['binary']: svc['state'] for svc in (body or {}).get('services', [])}


def _log_tail(log_path) -> str:
    return log_path.read_text(errors='replace')[-4000:]


def _wait_until_up(proc, log_path):
    """Poll until /v3/ answers and os-services lists the three services up."""
    deadline = time.monotonic() + READY_WITHIN
    states = {}
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f'make run exited with {proc.returncode}:\n{_log_tail(log_path)}')
        versions = _get('/v3/')
        if versions and versions[0] == 200:
            listed = _get('/v3/admin/os-services')
            states = _states(listed[1]) if listed and listed[0] == 200 else {}
            if all(states.get(binary) == 'up' for binary in EXPECTED_BINARIES):
                return states
        time.sleep(2)
    pytest.fail(f'services not all up within {READY_WITHIN}s (last seen {states}):\n'
                f'{_log_tail(log_path)}')


def _stop(proc):
    """Ctrl-C as a user would: SIGINT to make's process group, SIGKILL if it hangs."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGINT)
    try:
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        pytest.fail('make run did not stop within 60 s of SIGINT')


def test_make_run_from_a_fresh_clone(tmp_path):
    if _port_in_use():
        pytest.fail(f'port {PORT} is already in use on 127.0.0.1: stop what listens there '
                    '(another `make run`?) before running this test')
    clone = tmp_path / 'cinderlike'
    subprocess.run(['git', 'clone', '--quiet', str(ROOT), str(clone)], check=True)
    env = {k: v for k, v in os.environ.items()
           if k not in ('MAKEFLAGS', 'MAKELEVEL', 'MFLAGS', 'VIRTUAL_ENV', 'PYTHONPATH')}
    log_path = tmp_path / 'make-run.log'
    with log_path.open('wb') as log:
        proc = subprocess.Popen(['make', 'run'], cwd=clone, stdout=log,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env,
                                start_new_session=True)
        try:
            states = _wait_until_up(proc, log_path)
        finally:
            _stop(proc)
    assert {b: states[b] for b in EXPECTED_BINARIES} == dict.fromkeys(EXPECTED_BINARIES, 'up')
    assert (clone / 'state').is_dir() and any((clone / 'state').iterdir())
    assert 'curl' in log_path.read_text(errors='replace')
