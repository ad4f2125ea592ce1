"""drivers/backup/posix.py: Cinder's directory layout, modes, and what it refuses."""

import os
import stat
import tracemalloc

import pytest

from cinderlike import exception
from cinderlike.drivers.backup import base, posix
from tests.unit.drivers.backup.conftest import MiB, VolumeFile, ref, stored


def test_default_path_container_and_modes(posix_driver, tmp_path):
    driver = posix_driver()
    assert driver.root == str(tmp_path / 'backup')
    backup = ref()
    updates = driver.backup(backup, VolumeFile(os.urandom(MiB)))
    assert updates['container'] == f'{backup.id[0:2]}/{backup.id[2:4]}/{backup.id}'
    directory = tmp_path / 'backup' / updates['container']
    assert stat.S_IMODE(directory.stat().st_mode) == 0o770
    modes = {stat.S_IMODE(p.stat().st_mode) for p in directory.iterdir()}
    assert modes == {0o660}


def test_what_the_manager_asks(posix_driver):
    driver = posix_driver(backup_enable_progress_timer=False)
    assert driver.SUPPORTS_FORCE_DELETE and not driver.enable_progress_timer


def test_named_and_configured_containers(posix_driver, tmp_path):
    driver = posix_driver(backup_container='shared')
    first = driver.backup(ref(), VolumeFile(os.urandom(MiB)))
    own = driver.backup(ref(container='mine'), VolumeFile(os.urandom(MiB)))
    assert (first['container'], own['container']) == ('shared', 'mine')
    assert (tmp_path / 'backup' / 'mine').is_dir()


@pytest.mark.parametrize('container', ['../outside', '/etc', '.', 'a/../..'])
def test_container_outside_the_backup_path_is_refused(posix_driver, container):
    driver = posix_driver()
    with pytest.raises(exception.BackupDriverException, match='not a directory under'):
        driver.backup(ref(container=container), VolumeFile(os.urandom(MiB)))


def test_missing_container_refused_when_creation_is_off(posix_driver):
    driver = posix_driver(backup_create_containers=False)
    with pytest.raises(exception.BackupDriverException, match='backup_create_containers'):
        driver.backup(ref(container='absent'), VolumeFile(os.urandom(MiB)))


def test_shared_container_stays_when_a_backup_is_deleted(posix_driver, tmp_path):
    driver = posix_driver()
    backup = ref(container='mine')
    backup = stored(backup, driver.backup(backup, VolumeFile(os.urandom(MiB))))
    driver.delete_backup(backup)
    assert (tmp_path / 'backup' / 'mine').is_dir()
    assert list((tmp_path / 'backup' / 'mine').iterdir()) == []


def test_setup_checks(backup_conf, tmp_path):
    bad = posix.PosixBackupDriver(backup_conf(backup_file_size=1000))
    with pytest.raises(exception.BackupDriverException, match='not multiple'):
        bad.check_for_setup_error()
    blocker = tmp_path / 'file'
    blocker.write_text('')
    unusable = posix.PosixBackupDriver(backup_conf(backup_posix_path=str(blocker / 'sub')))
    with pytest.raises(exception.BackupDriverException, match='cannot create'):
        unusable.check_for_setup_error()


@pytest.mark.parametrize('name', ['posix', 'cinder.backup.drivers.posix.PosixBackupDriver',
                                  'cinderlike.drivers.backup.posix.PosixBackupDriver'])
def test_driver_class_accepts_cinder_and_own_paths(name):
    assert base.driver_class(name) is posix.PosixBackupDriver


@pytest.mark.parametrize('name', ['', 'nope', 'cinderlike.drivers.volume.file.FileDriver',
                                  'cinderlike.drivers.backup.posix.Missing'])
def test_driver_class_refuses_what_is_no_backup_driver(name):
    with pytest.raises(exception.BackupDriverNotFound):
        base.driver_class(name)


class _Generated:
    """A volume made up on read: nothing of it is held in memory by the test."""

    def __init__(self, size):
        self.size, self._pos = size, 0
        self._pattern = (b'generated volume data ' * 50000)[:MiB]

    def seek(self, pos):
        self._pos = pos

    def tell(self):
        return self._pos

    def read(self, n):
        n = min(n, self.size - self._pos)
        out = (self._pattern * (n // MiB + 1))[:n]
        self._pos += n
        return out


class _Sink:
    """A restore target that keeps only a digest of what it is given."""

    def __init__(self):
        self.written = 0

    def seek(self, pos):
        self.pos = pos

    def write(self, data):
        self.written += len(data)

    def flush(self):
        pass


def _peak(call):
    tracemalloc.start()
    try:
        result = call()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_memory_stays_bounded_whatever_the_object_size(posix_driver):
    """Cinder's default backup_file_size (~1.9 GB) makes one object of a 256 MiB volume:
    Cinder holds such a chunk in memory; here backup and restore hold a few pieces."""
    driver = posix_driver(backup_file_size=61035 * 32768, backup_compression_algorithm='zstd')
    volume = _Generated(256 * MiB)
    backup = ref()
    updates, peak = _peak(lambda: driver.backup(backup, volume))
    assert updates['object_count'] == 1
    assert peak < 64 * MiB, peak
    sink = _Sink()
    backup = stored(backup, updates)
    _, peak = _peak(lambda: driver.restore(backup, 'v', sink, volume_is_new=False))
    assert sink.written == 256 * MiB
    assert peak < 64 * MiB, peak
