"""Backup driver fixtures: a posix driver on a temporary directory, refs, volume files."""

import dataclasses
import datetime
import hashlib
import io
import uuid

import pytest

from cinderlike import conf as cl_conf
from cinderlike.drivers.backup import base, posix

KiB = 1024
MiB = 1024 * KiB
BLOCK = 32 * KiB
CREATED = datetime.datetime(2026, 12, 1, 11, 44, 42)


class VolumeFile(io.BytesIO):
    """A volume as the manager hands it over: a file-like with its `size` in bytes."""

    def __init__(self, data=b'', size=None):
        super().__init__(data)
        self.size = len(data) if size is None else size


def sha(data) -> str:
    return hashlib.sha256(data).hexdigest()


def ref(volume_id='vol-1', *, parent=None, size=1, **kwargs) -> base.BackupRef:
    return base.BackupRef(id=str(uuid.uuid4()), volume_id=volume_id, availability_zone='nova',
                          container=kwargs.pop('container', None), service_metadata=None,
                          size=size, created_at=CREATED, parent=parent, **kwargs)


def stored(backup: base.BackupRef, updates: dict) -> base.BackupRef:
    """The ref as the manager builds it after saving backup()'s row updates."""
    return dataclasses.replace(backup, container=updates['container'],
                               service_metadata=updates['service_metadata'])


@pytest.fixture
def backup_conf(tmp_path):
    def make(**options):
        conf = cl_conf.new_conf()
        conf.register_opts(posix.DRIVER_OPTS)
        conf([])
        conf.set_override('state_path', str(tmp_path))
        # Small objects, so a few MiB give many of them.
        conf.set_override('backup_file_size', 8 * BLOCK)
        for name, value in options.items():
            conf.set_override(name, value)
        return conf
    return make


@pytest.fixture
def posix_driver(backup_conf):
    def make(**options):
        driver = posix.PosixBackupDriver(backup_conf(**options))
        driver.check_for_setup_error()
        return driver
    return make
