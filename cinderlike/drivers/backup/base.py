"""The interface the backup manager drives (cinderlike-backup process).

A driver gets a BackupRef (never a row) and a file-like of the volume, and answers with the
backups-row columns for the manager to store.

Additions to the interface agreed in the backups brief (all optional, so callers written
against the brief keep working):
- BackupRef has `name` and `description` (default None): written into the metadata object
  as Cinder's `backup_name`/`backup_description`.
- `restore()` takes `progress=None` like `backup()`: progress(done_bytes, total_bytes) after
  each piece written. Either callback may raise (a cancelled backup or restore): the driver
  stops, a backup removes the objects it wrote, and the exception propagates.
- `SUPPORTS_FORCE_DELETE` (Cinder's support_force_delete, for os-force_delete and the
  check_support_to_force_delete RPC) and `enable_progress_timer` (Cinder's per-driver
  backup_enable_progress_timer / backup_swift_enable_progress_timer) for the manager.
"""

import abc
import dataclasses
import datetime

from oslo_utils import importutils

from cinderlike import exception

# `backup_driver` values: our short names and Cinder's class paths, so a cinder.conf works.
ALIASES = {
    'posix': 'cinderlike.drivers.backup.posix.PosixBackupDriver',
    'swift': 'cinderlike.drivers.backup.swift.SwiftBackupDriver',
    'cinder.backup.drivers.posix.PosixBackupDriver':
        'cinderlike.drivers.backup.posix.PosixBackupDriver',
    'cinder.backup.drivers.posix': 'cinderlike.drivers.backup.posix.PosixBackupDriver',
    'cinder.backup.drivers.swift.SwiftBackupDriver':
        'cinderlike.drivers.backup.swift.SwiftBackupDriver',
    'cinder.backup.drivers.swift': 'cinderlike.drivers.backup.swift.SwiftBackupDriver',
}


@dataclasses.dataclass(frozen=True)
class BackupRef:
    """What a driver may know about a backup (ARCHITECTURE.md: drivers never touch rows)."""

    id: str
    volume_id: str
    availability_zone: str | None
    container: str | None           # None: the driver's default container
    service_metadata: str | None    # the driver's locator (backups.service_metadata)
    size: int                       # GiB of the volume backed up
    created_at: datetime.datetime
    parent: 'BackupRef | None' = None   # incrementals: the parent, chained to the full one
    name: str | None = None
    description: str | None = None

    def chain(self) -> list['BackupRef']:
        """The full backup first, then each incremental up to this one."""
        refs, ref = [], self
        while ref is not None:
            refs.append(ref)
            ref = ref.parent
        return refs[::-1]


class BackupDriver(abc.ABC):
    """One backup target; `conf` is the backup service's ConfigOpts with DRIVER_OPTS on it."""

    # Options of this driver, registered into [DEFAULT] by the manager (Cinder's places).
    DRIVER_OPTS: list = []
    # A backup being written may be deleted (the manager cancels it through `progress`).
    SUPPORTS_FORCE_DELETE = False
    # NOTE(service): what a backup row's `service` and an export record's `backup_service`
    # name; a driver writing Cinder's format names Cinder's class, so Cinder and tempest read
    # the record. None: this class's own path.
    SERVICE_NAME: str | None = None

    @classmethod
    def service_name(cls) -> str:
        return cls.SERVICE_NAME or f'{cls.__module__}.{cls.__qualname__}'

    def __init__(self, conf, *, context=None):
        self.conf = conf
        self.context = context

    @property
    def enable_progress_timer(self) -> bool:
        """Whether the manager sends backup.createprogress every backup_timer_interval."""
        return self.conf.backup_enable_progress_timer

    def check_for_setup_error(self) -> None:
        """Raise BackupDriverException when the target is unusable; the service waits."""
        return None

    def for_context(self, context) -> 'BackupDriver':
        """The driver an operation of *context* uses: this one, unless the driver acts with
        the requester's own credentials (Cinder builds a driver per request)."""
        return self

    @abc.abstractmethod
    def backup(self, backup: BackupRef, volume_file, *, volume_meta: dict | None = None,
               progress=None) -> dict:
        """Store *volume_file*; incremental when `backup.parent` is set.

        :returns: backups-row updates: container, service_metadata, object_count.
        """

    @abc.abstractmethod
    def restore(self, backup: BackupRef, volume_id: str, volume_file, *, volume_is_new: bool,
                progress=None) -> dict | None:
        """Write the chain full → … → *backup* into *volume_file*.

        :returns: the volume_meta stored with the backup, or None.
        :raises BackupRestoreCorrupt: before writing any byte that fails its checksum.
        """

    @abc.abstractmethod
    def delete_backup(self, backup: BackupRef) -> None:
        """Remove the backup's objects; objects already gone are fine."""

    def export_record(self, backup: BackupRef) -> dict:
        """Driver-specific facts an import elsewhere needs (JSON-safe)."""
        return {}

    def import_record(self, backup: BackupRef, driver_info: dict) -> None:
        """Check that an imported record matches what this target holds."""
        return None


def driver_class(path: str) -> type[BackupDriver]:
    """The BackupDriver subclass named by `backup_driver` (alias, Cinder's or our class path).

    :raises BackupDriverNotFound: when *path* is empty, unknown or not a BackupDriver.
    """
    if not path:
        raise exception.BackupDriverNotFound(name=path)
    try:
        cls = importutils.import_class(ALIASES.get(path, path))
    except (ImportError, ValueError, AttributeError) as exc:
        raise exception.BackupDriverNotFound(name=path) from exc
    if not (isinstance(cls, type) and issubclass(cls, BackupDriver)):
        raise exception.BackupDriverNotFound(name=path)
    return cls
