"""A private user-space tgtd (Debian's tgt): its own management port and iSCSI portal, stopped
cleanly as tgt wants it (every target deleted, then the daemon). cinderlike-all runs one for
its embedded file backend; the tgt tests run theirs (tests/fixtures/tgt.py).

    tgtd -f -C <control port> --iscsi portal=127.0.0.1:<port>
    tgtadm -C <control port> --lld iscsi --op delete --mode target --tid <tid> --force
    tgtadm -C <control port> --lld iscsi --op delete --mode system
"""

import os
import random
import socket
import subprocess
import time

SOCKET_DIR = '/run/tgtd'
MAX_CONTROL_PORT = 32767
START_SECONDS = 10
LISTEN_HOST = '127.0.0.1'


def free_tcp_port() -> int:
    with socket.socket() as probe:
        probe.bind((LISTEN_HOST, 0))
        return probe.getsockname()[1]


def _free_control_port() -> int:
    """A management port no tgtd uses: tgtd listens on /run/tgtd/socket.<port>, and takes
    1..32767 only."""
    while True:
        port = random.randint(1024, MAX_CONTROL_PORT)
        if not os.path.exists(os.path.join(SOCKET_DIR, f'socket.{port}')):
            return port


class Tgtd:
    """One tgtd process, portal `127.0.0.1:<portal_port>` (a free port unless given)."""

    def __init__(self, log_path: str, portal_port: int | None = None):
        self.control_port = _free_control_port()
        self.portal_port = portal_port or free_tcp_port()
        self.portal = f'{LISTEN_HOST}:{self.portal_port}'
        self.log_path = log_path
        self.process: subprocess.Popen | None = None

    def tgtadm(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        return subprocess.run(['tgtadm', '-C', str(self.control_port), '--lld', 'iscsi', *args],
                              capture_output=True, text=True, check=check)

    def start(self) -> None:
        """Start tgtd and wait until it answers.

        NOTE(session): in a session of its own, so a Ctrl-C meant for its parent does not
        end it before the parent's clean stop.

        :raises RuntimeError: it exited or did not answer within START_SECONDS.
        """
        with open(self.log_path, 'a') as log:
            self.process = subprocess.Popen(
                ['tgtd', '-f', '-C', str(self.control_port), '--iscsi',
                 f'portal={self.portal}'], stdout=log, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + START_SECONDS
        while not self._answers():
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.kill()
                raise RuntimeError(f'tgtd did not start; see {self.log_path}')
            time.sleep(0.1)

    def _answers(self) -> bool:
        """Management socket answers and the portal accepts connections."""
        if self.tgtadm('--op', 'show', '--mode', 'sys', check=False).returncode != 0:
            return False
        try:
            socket.create_connection((LISTEN_HOST, self.portal_port), timeout=1).close()
        except OSError:
            return False
        return True

    def target_ids(self) -> list[str]:
        out = self.tgtadm('--op', 'show', '--mode', 'target').stdout
        return [line.split()[1].rstrip(':') for line in out.splitlines()
                if line.startswith('Target ')]

    def stop(self) -> None:
        """Delete each target (--force: with sessions), then the daemon; wait for its exit."""
        for tid in self.target_ids():
            self.tgtadm('--op', 'delete', '--mode', 'target', '--tid', tid, '--force')
        self.tgtadm('--op', 'delete', '--mode', 'system')
        self.process.wait(timeout=START_SECONDS)
        self.process = None

    def restart(self) -> None:
        self.stop()
        self.start()

    def kill(self) -> None:
        """Last resort after a failed clean stop: end the process this object started."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
