"""Backups as files in a directory (cinderlike-backup): Cinder's posix driver layout.

`backup_posix_path/<container>/<prefix>-00001`…; the default container is
`<id[0:2]>/<id[2:4]>/<id>`, directories 0770 and files 0660 as Cinder makes them.
"""

import errno
import os
import stat

from oslo_config import cfg
from oslo_log import log as logging

from cinderlike import exception
from cinderlike.drivers.backup import chunked

LOG = logging.getLogger(__name__)

DRIVER_OPTS = [
    cfg.StrOpt('backup_posix_path', default='$state_path/backup',
               help='Directory the posix backup driver stores backups under.'),
    cfg.StrOpt('backup_container',
               help='Directory (under backup_posix_path) for backups created without a '
                    'container; unset: one directory per backup, <id[0:2]>/<id[2:4]>/<id>.'),
]

_DIR_MODE = stat.S_IRWXU | stat.S_IRWXG
_FILE_MODE = stat.S_IRUSR | stat.S_IWUSR | stat.S_IRGRP | stat.S_IWGRP


class _FileWriter:
    """One object file: written in place (Cinder's names), synced on close, removed on abort."""

    def __init__(self, path):
        self.path = path
        self._file = open(path, 'wb')  # noqa: SIM115 - closed by close() or abort()
        os.chmod(path, _FILE_MODE)

    def write(self, data):
        self._file.write(data)

    def close(self):
        self._file.flush()
        os.fsync(self._file.fileno())
        self._file.close()
        # NOTE(durability): the new name is on disk only once its directory is synced too.
        directory = os.open(os.path.dirname(self.path), os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)

    def abort(self):
        self._file.close()
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass


class PosixBackupDriver(chunked.ChunkedBackupDriver):
    """Backups in `backup_posix_path` (a local or mounted file system)."""

    SERVICE_NAME = 'cinder.backup.drivers.posix.PosixBackupDriver'

    DRIVER_OPTS = DRIVER_OPTS

    def __init__(self, conf, *, context=None):
        super().__init__(conf, context=context)
        self.root = os.path.abspath(conf.backup_posix_path)

    @property
    def chunk_size(self) -> int:
        return self.conf.backup_file_size

    @property
    def sha_block_size(self) -> int:
        return self.conf.backup_sha_block_size_bytes

    def check_for_setup_error(self) -> None:
        super().check_for_setup_error()
        try:
            os.makedirs(self.root, exist_ok=True)
        except OSError as exc:
            raise exception.BackupDriverException(
                reason=f'cannot create backup_posix_path {self.root}: {exc}') from exc
        if not os.access(self.root, os.W_OK | os.X_OK):
            raise exception.BackupDriverException(
                reason=f'backup_posix_path {self.root} is not writable')

    def default_container(self, backup) -> str:
        if self.conf.backup_container:
            return self.conf.backup_container
        return os.path.join(backup.id[0:2], backup.id[2:4], backup.id)

    def object_prefix(self, backup) -> str:
        stamp = backup.created_at.strftime('%Y%m%d%H%M%S')
        return f'volume_{backup.volume_id}_{stamp}_backup_{backup.id}'

    def _dir(self, container: str) -> str:
        """The container's directory, which must stay under backup_posix_path."""
        path = os.path.realpath(os.path.join(self.root, container))
        root = os.path.realpath(self.root)
        if os.path.commonpath([path, root]) != root or path == root:
            raise exception.BackupDriverException(
                reason=f'container {container} is not a directory under backup_posix_path')
        return path

    def put_container(self, container: str) -> None:
        path = self._dir(container)
        if os.path.isdir(path):
            return
        if not self.conf.backup_create_containers:
            raise exception.BackupDriverException(
                reason=f'backup directory {container} does not exist and '
                       'backup_create_containers is False')
        os.makedirs(path, exist_ok=True)
        os.chmod(path, _DIR_MODE)

    def list_objects(self, container: str, prefix: str) -> list[str]:
        try:
            names = os.listdir(self._dir(container))
        except FileNotFoundError:
            return []
        return sorted(n for n in names if n.startswith(prefix))

    def open_object(self, container: str, name: str):
        return _FileWriter(os.path.join(self._dir(container), name))

    def read_object(self, container: str, name: str):
        path = os.path.join(self._dir(container), name)
        try:
            handle = open(path, 'rb')  # noqa: SIM115 - closed by the generator
        except FileNotFoundError:
            raise exception.BackupObjectNotFound(name=name, container=container) from None
        return _pieces(handle, self.piece_size)

    def delete_object(self, container: str, name: str) -> None:
        try:
            os.unlink(os.path.join(self._dir(container), name))
        except FileNotFoundError:
            pass

    def container_emptied(self, backup, container: str) -> None:
        """A backup's own directory (the default one) goes with its last object."""
        if backup.container not in (None, self.default_container(backup)) or \
                self.conf.backup_container:
            return
        try:
            os.rmdir(self._dir(container))
        except OSError as exc:
            if exc.errno not in (errno.ENOENT, errno.ENOTEMPTY):
                raise


def _pieces(handle, size: int):
    with handle:
        while True:
            data = handle.read(size)
            if not data:
                return
            yield data
