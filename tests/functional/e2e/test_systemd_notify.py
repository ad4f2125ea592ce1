"""systemd readiness: each of the four daemons, started as its unit would start it (Type=notify,
NOTIFY_SOCKET set), sends READY=1 on a datagram socket this test owns, once it serves; the
units in etc/systemd/ say Type=notify, NotifyAccess=all, restart on failure and a graceful
stop. RabbitMQ and PostgreSQL."""

import configparser
import os
import pathlib
import socket

import pytest

from tests.functional.e2e.stack import deployed

pytestmark = [pytest.mark.rabbit, pytest.mark.postgresql]

UNITS = pathlib.Path(__file__).resolve().parents[3] / 'etc' / 'systemd'
DAEMONS = ('scheduler', 'volume', 'backup', 'api')
READY_WITHIN = 90


def _ready_from(receiver: socket.socket) -> list[str]:
    """Every notification received until READY=1 (AssertionError after READY_WITHIN s)."""
    received = []
    receiver.settimeout(READY_WITHIN)
    while not any('READY=1' in message.split('\n') for message in received):
        try:
            received.append(receiver.recv(4096).decode())
        except TimeoutError:
            raise AssertionError(f'no READY=1 within {READY_WITHIN}s: {received}') from None
    return received


def test_each_daemon_notifies_readiness(tmp_path, postgresql_server_url, rabbit_url):
    path = str(tmp_path / 'notify.sock')
    receiver = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    receiver.bind(path)
    notified = {}

    def start(stack):
        os.environ['NOTIFY_SOCKET'] = path
        try:
            for name in DAEMONS:
                stack.start(name)
                notified[name] = _ready_from(receiver)
        finally:
            del os.environ['NOTIFY_SOCKET']

    (tmp_path / 'stack').mkdir()
    with deployed(tmp_path / 'stack', server_url=postgresql_server_url,
                  transport_url=rabbit_url, start=start) as stack:
        # ready means serving: the API answers and every service row is registered.
        stack.wait_for_api(timeout=5)
        assert stack.expected_services() <= set(stack.services())
        for name in DAEMONS:
            assert stack.daemons[name].proc.poll() is None
    receiver.close()
    assert set(notified) == set(DAEMONS)


@pytest.mark.parametrize('name', DAEMONS)
def test_unit_file(name):
    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.read(UNITS / f'cinderlike-{name}.service')
    service = unit['Service']
    assert (service['Type'], service['NotifyAccess']) == ('notify', 'all')
    assert service['ExecStart'].split()[0].endswith(f'/cinderlike-{name}')
    assert (service['Restart'], service['KillSignal'], service['KillMode']) == (
        'on-failure', 'SIGTERM', 'mixed')
    # longer than the daemons' own graceful_shutdown_timeout default (60 s)
    assert int(service['TimeoutStopSec']) > 60
    assert unit['Install']['WantedBy'] == 'multi-user.target'
