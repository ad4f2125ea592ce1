"""Errors raised inside the services rather than by a bad request: the daemons, volume drivers,
the host connector (os-brick's role), the scheduler and backup drivers. Most answer 500; a few
configuration errors are NotFound or Invalid."""

from cinderlike.exception.base import CinderlikeException
from cinderlike.exception.invalid import Invalid
from cinderlike.exception.not_found import NotFound

# --- daemons ---------------------------------------------------------------

class VolumeTypeDefaultMisconfiguredError(CinderlikeException):
    """`default_volume_type` names no live type (500, as Cinder)."""
    msg_fmt = ('The request cannot be fulfilled as the default volume type %(volume_type_name)s '
               'cannot be found.')


class ServiceTooOld(CinderlikeException):
    """A peer service speaks an older RPC version than the call needs."""
    msg_fmt = 'Service is too old to fulfil this request.'


class DBMigrationError(CinderlikeException):
    """A database schema migration failed or was asked something impossible."""
    msg_fmt = 'Database migration failed: %(reason)s'


class VolumeMigrationFailed(CinderlikeException):
    """A migration (or the retype that needed one) could not be made."""
    msg_fmt = 'Volume migration failed: %(reason)s'


class VolumeDriverNotFound(NotFound):
    """`volume_driver` names no cinderlike volume driver."""
    msg_fmt = 'Volume driver %(name)s could not be found.'


class NoEnabledBackends(Invalid):
    """cinderlike-volume was started without `enabled_backends`."""
    msg_fmt = ('Configuration for cinderlike-volume does not specify "enabled_backends". '
               'Using DEFAULT section to configure drivers is not supported.')


class HealthcheckConfigInvalid(Invalid):
    """`[healthcheck] backends` names both `disable_by_file` and `enable_by_files`.

    oslo.middleware refuses that with its ConfigInvalid, whose text is only "Invalid
    configuration file. %(error_msg)s" (the reason is never put in); this one says it."""
    msg_fmt = ('Invalid configuration file. `enable_by_files` plugin and `disable_by_file` '
               'plugin should not be enabled at the same time.')


class TemporarilyUnavailable(CinderlikeException):
    """A service the request needs (the message broker, the database) cannot be reached now;
    what the request wrote was undone (503; Cinder's ServiceUnavailable above is its 400)."""
    msg_fmt = 'Service is unavailable at this time.'
    code = 503
    safe = True


class RPCTimeout(CinderlikeException):
    """A backend did not answer an API-side RPC call in time (502, as Cinder)."""
    msg_fmt = 'Timeout while requesting capabilities from backend %(service)s.'
    code = 502


# --- volume drivers --------------------------------------------------------

class VolumeDriverException(CinderlikeException):
    """A volume driver failed; the volume ends in an error status and a user message."""
    msg_fmt = 'Volume driver reported an error: %(message)s'


class VolumeBackendAPIException(VolumeDriverException):
    """The storage backend refused or failed an operation."""
    msg_fmt = 'Bad or unexpected response from the storage volume backend API: %(data)s'


class VolumeIsBusy(VolumeDriverException):
    """The backend cannot delete the volume now (it is in use there); it goes back to available."""
    msg_fmt = 'deleting volume %(volume_name)s that has snapshot'


class SnapshotIsBusy(VolumeDriverException):
    """The backend cannot delete the snapshot now (volumes depend on it); it stays available."""
    msg_fmt = 'deleting snapshot %(snapshot_name)s that has dependent volumes'


class UnableToFailOver(CinderlikeException):
    """A volume driver could not fail its backend over (Cinder's wording, parenthesis too)."""
    msg_fmt = 'Unable to failover to replication target: %(reason)s).'


class ManageExistingInvalidReference(VolumeDriverException):
    """The backend object a manage request names is unusable; the volume ends error_managing."""
    msg_fmt = ('Manage existing volume failed due to invalid backend reference '
               '%(existing_ref)s: %(reason)s')


class ManageExistingAlreadyManaged(VolumeDriverException):
    """The backend object a manage request names is a managed volume's already."""
    msg_fmt = 'Unable to manage existing volume. Volume %(volume_ref)s already managed.'


class DriverNotInitialized(VolumeDriverException):
    """The backend's driver is not initialised; the service refuses driver work."""
    msg_fmt = 'Volume driver not ready.'


class ISCSITargetCreateFailed(VolumeDriverException):
    """The target helper could not export the volume as an iSCSI target."""
    msg_fmt = 'Failed to create iscsi target for volume %(volume_id)s.'


class ISCSITargetRemoveFailed(VolumeDriverException):
    """The target helper could not delete the volume's iSCSI target."""
    msg_fmt = 'Failed to remove iscsi target for volume %(volume_id)s.'


# --- host connector (os-brick's role) --------------------------------------

class BrickException(CinderlikeException):
    """The host could not reach a volume through its connection info (os-brick's base)."""
    msg_fmt = 'An unknown exception occurred.'


class ProtocolNotSupported(BrickException):
    """No connector on this host speaks the connection's driver_volume_type."""
    msg_fmt = 'Connect to volume via protocol %(protocol)s not supported.'


class InvalidConnectionInfo(BrickException):
    """The connection info lacks a field its protocol needs, or holds a wrong value."""
    msg_fmt = 'Invalid %(protocol)s connection info: %(reason)s'


class VolumeDeviceNotFound(BrickException):
    """The local device or image file of the connection is not there."""
    msg_fmt = 'Volume device not found at %(device)s.'


class BlockDeviceReadOnly(BrickException):
    """The volume was asked for writing but is attached (or exported) read-only."""
    msg_fmt = 'Block device %(device)s is Read-Only.'


class VolumeAttachFailed(BrickException):
    """The host-side helper that serves the volume (qemu-nbd) could not open it."""
    msg_fmt = 'Unable to attach volume %(device)s: %(reason)s'


class FailedISCSITargetPortalLogin(VolumeAttachFailed):
    """The iSCSI target refused the login: wrong CHAP credentials, unknown target or LUN."""
    msg_fmt = 'Unable to login to iSCSI Target Portal %(portal)s: %(reason)s'


class NBDError(BrickException):
    """The NBD server broke the protocol, refused the export or dropped the connection."""
    msg_fmt = 'NBD connection to %(server)s failed: %(reason)s'


# --- scheduler -------------------------------------------------------------

class NoValidBackend(CinderlikeException):
    """No backend passed the filters, or every candidate's capacity claim failed."""
    msg_fmt = 'No valid backend was found. %(reason)s'


class SchedulerHostFilterNotFound(NotFound):
    """scheduler_default_filters names a filter that does not exist."""
    msg_fmt = 'Scheduler Host Filter %(filter_name)s could not be found.'


class SchedulerHostWeigherNotFound(NotFound):
    """scheduler_default_weighers names a weigher that does not exist."""
    msg_fmt = 'Scheduler Host Weigher %(weigher_name)s could not be found.'


class EvaluatorParseException(CinderlikeException):
    """A filter_function/goodness_function does not parse or cannot be evaluated."""
    msg_fmt = 'Error during evaluator parsing: %(reason)s'


# --- backup drivers --------------------------------------------------------

class BackupDriverNotFound(NotFound):
    """`backup_driver` names no cinderlike (or Cinder) backup driver."""
    msg_fmt = 'Backup driver %(name)s could not be found.'


class ServiceUserTokenNoAuth(CinderlikeException):
    """send_service_user_token is set but [service_user] loads no auth plugin."""
    msg_fmt = ('The [service_user] send_service_user_token option was requested, but no '
               'service auth could be loaded. Please check the [service_user] configuration '
               'section.')


class BackupDriverException(CinderlikeException):
    """A backup driver failed; the backup ends in an error status with this reason."""
    msg_fmt = 'Backup driver reported an error: %(reason)s'


class BackupChainInvalid(BackupDriverException):
    """The stored backup (or its parent) cannot serve the request: Cinder's InvalidBackup text."""
    msg_fmt = 'Invalid backup: %(reason)s'


class BackupVersionUnsupported(BackupChainInvalid):
    """The backup's metadata object has a version this driver cannot restore."""
    msg_fmt = 'Invalid backup: No support to restore backup version %(version)s'


class BackupRestoreCorrupt(BackupDriverException):
    """A stored object fails its checksum, length or decompression; nothing of it was written."""
    msg_fmt = 'Backup %(backup_id)s is corrupt: %(reason)s'


class SwiftConnectionFailed(BackupDriverException):
    """Swift could not be reached, or refused the request."""
    msg_fmt = 'Connection to swift failed: %(reason)s'


class BackupObjectNotFound(BackupChainInvalid):
    """An object the backup's records name is not in its container."""
    msg_fmt = 'Invalid backup: object %(name)s is missing from container %(container)s'
