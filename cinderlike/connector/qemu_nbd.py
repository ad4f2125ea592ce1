"""One private qemu-nbd per attachment: it opens the image (a qcow2 file, an iSCSI LUN through
qemu's libiscsi driver) and serves it to one NBD client on a unix socket in a 0700 directory.

NOTE(activation): the socket is bound here and handed to qemu-nbd as systemd-style socket
activation (LISTEN_FDS, fd 3), so we can connect before qemu-nbd is ready: the handshake
starts when it has opened the image, and a qemu-nbd that fails to open it exits, which
ends our connection. No polling for a socket file, and no window in which another local
user could be the first client.

NOTE(orphan): qemu-nbd 7.2 exits when its client goes only after a completed handshake; a
process killed while qemu-nbd is still opening the image leaves that qemu-nbd running
(later qemu releases bound the handshake time).
"""

import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile

from oslo_log import log as logging

from cinderlike import exception
from cinderlike.connector import nbd

LOG = logging.getLogger(__name__)

QEMU_NBD = 'qemu-nbd'
SECRET_ID = 'sec0'
# NOTE(timeouts): opening an iSCSI LUN includes the TCP connect and login, which libiscsi
# does without a timeout of its own; an attachment that is not ready by then is abandoned.
ATTACH_TIMEOUT = 60
# A single NBD request (at most 32 MiB) that takes this long means the target is gone.
IO_TIMEOUT = 300
STOP_TIMEOUT = 30
# A qemu-nbd whose handshake failed is exiting already; one that hangs is ended after this.
FAILED_GRACE = 5
# NOTE(activate): the listener must be fd 3 and LISTEN_PID qemu-nbd's own pid; a small
# Python step moves the fd and execs (dash cannot redirect fds above 9, and a preexec_fn is
# unsafe in threaded daemons).
ACTIVATE = ('import os, sys\n'
            'fd = int(sys.argv[1])\n'
            'if fd != 3:\n'
            '    os.dup2(fd, 3)\n'
            '    os.close(fd)\n'
            'os.environ.update(LISTEN_PID=str(os.getpid()), LISTEN_FDS="1")\n'
            'os.execvp(sys.argv[2], sys.argv[2:])\n')


class Server:
    """qemu-nbd serving *image* (a blockdev options dict) to the client `start()` returns."""

    def __init__(self, image: dict, *, writable: bool, device: str,
                 secret: str | None = None):
        self.image = image
        self.writable = writable
        self.device = device
        self.secret = secret
        self.process: subprocess.Popen | None = None
        self.workdir: str | None = None

    @property
    def _log_path(self) -> str:
        return os.path.join(self.workdir, 'qemu-nbd.log')

    def _secret_object(self) -> list[str]:
        """The --object that hands qemu-nbd the secret through a 0600 file, if there is one."""
        if self.secret is None:
            return []
        path = os.path.join(self.workdir, 'secret')
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, 'w') as out:
            out.write(self.secret)
        return ['--object', f'secret,id={SECRET_ID},file={path},format=raw']

    def _command(self) -> list[str]:
        command = [QEMU_NBD, '--shared=1', '--cache=writeback', *self._secret_object()]
        if not self.writable:
            command.append('--read-only')
        # NOTE(json): the image is a json: filename with its format named, so qemu never
        # probes the format of guest-written bytes.
        command.append('json:' + json.dumps(self.image, separators=(',', ':')))
        return command

    def start(self) -> nbd.Client:
        """Run qemu-nbd and negotiate the export; the returned client is ready for I/O.

        :raises VolumeAttachFailed: qemu-nbd could not open the image (its message).
        """
        self.workdir = tempfile.mkdtemp(prefix='cinderlike-nbd-')
        try:
            return self._start()
        except BaseException:
            self.stop()
            raise

    def _start(self) -> nbd.Client:
        path = os.path.join(self.workdir, 'nbd.sock')
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listener:
            listener.bind(path)
            listener.listen(1)
            fd = listener.fileno()
            with open(self._log_path, 'wb') as log:
                self.process = subprocess.Popen(
                    [sys.executable, '-c', ACTIVATE, str(fd), *self._command()],
                    pass_fds=(fd,), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                    stderr=log)
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.settimeout(ATTACH_TIMEOUT)
            sock.connect(path)
        # Only qemu-nbd holds the listener now: when it exits, our connection ends.
        client = nbd.Client(sock, server=f'qemu-nbd of {self.device}')
        try:
            client.handshake()
        except exception.NBDError as exc:
            client.close()
            raise self._attach_failed(exc) from exc
        sock.settimeout(IO_TIMEOUT)
        LOG.debug('qemu-nbd (pid %(pid)s) serves %(device)s, %(size)s bytes',
                  {'pid': self.process.pid, 'device': self.device,
                   'size': client.export.size})
        return client

    def _attach_failed(self, exc: exception.NBDError) -> exception.BrickException:
        """qemu-nbd's own words on why it could not serve the image."""
        self._wait(FAILED_GRACE)
        with open(self._log_path, 'rb') as log:
            said = log.read().decode('utf-8', 'replace').strip()
        return exception.VolumeAttachFailed(device=self.device, reason=said or exc.msg)

    def _wait(self, timeout: float) -> None:
        """Wait up to *timeout* for qemu-nbd to exit; end it (TERM, then KILL) if it does not."""
        try:
            self.process.wait(timeout=timeout)
            return
        except subprocess.TimeoutExpired:
            LOG.warning('qemu-nbd (pid %(pid)s) of %(device)s did not exit; terminating it',
                        {'pid': self.process.pid, 'device': self.device})
        self.process.terminate()
        try:
            self.process.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def stop(self) -> None:
        """After the client disconnected: qemu-nbd exits by itself (one client, not
        persistent); then the socket, secret and log go with the directory."""
        try:
            if self.process is not None:
                self._wait(STOP_TIMEOUT)
                if self.process.returncode not in (0, None):
                    LOG.debug('qemu-nbd of %(device)s exited with %(code)s',
                              {'device': self.device, 'code': self.process.returncode})
        finally:
            if self.workdir is not None:
                with contextlib.suppress(FileNotFoundError):
                    shutil.rmtree(self.workdir)
