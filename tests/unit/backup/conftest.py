"""A backup manager on the posix driver next to a volume manager on the file driver (real
qemu-img), talking to it in-process: the backup service's data path tested without daemons.

The backup manager attaches volumes with the real cinderlike.connector (`local` files).
"""

import hashlib

import pytest
from oslo_messaging.notify import _impl_test

from cinderlike import context
from cinderlike.backup import manager as backup_manager
from cinderlike.db import services as db_services
from cinderlike.drivers.backup import posix
from tests.unit.volume.conftest import conf, db, manager  # noqa: F401 - fixtures
from tests.unit.volume.test_file_backend import file_manager  # noqa: F401 - fixture

MiB = 1024 * 1024


class DirectVolumeAPI:
    """VolumeAPI whose calls and casts run on the volume manager in this thread."""

    def __init__(self, volume_manager):
        self._manager = volume_manager
        self.calls = []

    def __getattr__(self, method):
        def call(ctx, *, host=None, cluster_name=None, **kwargs):
            self.calls.append(method)
            return getattr(self._manager, method)(ctx, **kwargs)
        return call


@pytest.fixture
def backup_mgr(conf, db, file_manager, tmp_path):  # noqa: F811 - fixtures
    """A ready backup manager (posix under tmp_path/backups, no compression)."""
    conf.register_opts(posix.DRIVER_OPTS)
    conf.set_override('backup_driver', 'posix')
    conf.set_override('backup_posix_path', str(tmp_path / 'backups'))
    conf.set_override('backup_compression_algorithm', 'none')
    conf.set_override('backup_file_size', 4 * MiB)
    db_services.register(db, host='bk1', binary='cinder-backup', topic='cinder-backup',
                         availability_zone='nova')
    mgr = backup_manager.BackupManager(conf, host='bk1', db=db)
    mgr.volume_api = DirectVolumeAPI(file_manager)
    mgr.init_host(context.get_admin_context())
    assert mgr.is_working()
    _impl_test.reset()
    return mgr


def sha_of(path) -> str:
    digest = hashlib.sha256()
    with open(path, 'rb') as data:
        for piece in iter(lambda: data.read(MiB), b''):
            digest.update(piece)
    return digest.hexdigest()


def write_pattern(path, seed: bytes, offsets=(0, 5 * MiB, 12 * MiB)) -> None:
    """1 MiB of seeded bytes at each offset of the volume file."""
    with open(path, 'r+b') as volume_file:
        for index, offset in enumerate(offsets):
            volume_file.seek(offset)
            volume_file.write(hashlib.sha256(seed + bytes([index])).digest() * (MiB // 32))
