"""The one error hierarchy: each family carries Cinder's HTTP code and message wording."""


class CinderlikeException(Exception):
    """Base: `msg_fmt % kwargs` is the message; `code` is the HTTP status the API answers."""

    msg_fmt = 'An unknown exception occurred.'
    code = 500
    safe = False

    def __init__(self, message=None, **kwargs):
        self.kwargs = kwargs
        if message is None:
            try:
                message = self.msg_fmt % kwargs
            except (KeyError, TypeError):
                message = self.msg_fmt
        self.msg = str(message)
        super().__init__(self.msg)


# --- 400 -------------------------------------------------------------------

class Invalid(CinderlikeException):
    """The request is well-formed but cannot be honoured."""
    msg_fmt = 'Unacceptable parameters.'
    code = 400
    safe = True


class InvalidInput(Invalid):
    """A request field has a bad value."""
    msg_fmt = 'Invalid input received: %(reason)s'


class InvalidHost(Invalid):
    """No such host/service pair."""
    msg_fmt = 'Invalid host: %(reason)s'


class ClusterHasHosts(Invalid):
    """A cluster cannot be removed while live services name it."""
    msg_fmt = 'Cluster %(id)s still has hosts.'


class MalformedRequestUrl(Invalid):
    """The project in the URL is not the token's project."""
    msg_fmt = 'Malformed request url'


class InvalidGlobalAPIVersion(CinderlikeException):
    """OpenStack-API-Version outside the supported range."""
    msg_fmt = ('Version %(req_ver)s is not supported by the API. Minimum is %(min_ver)s '
               'and maximum is %(max_ver)s.')
    code = 406
    safe = True


class ValidationError(Invalid):
    """A request body does not match its JSON schema."""
    msg_fmt = '%(detail)s'


class InvalidParameterValue(Invalid):
    """A query parameter has a value of the wrong kind."""
    msg_fmt = '%(err)s'


class InvalidQuotaValue(Invalid):
    """A quota change would take usage below zero."""
    msg_fmt = ('Change would make usage less than 0 for the following resources: '
               '%(unders)s')


class InvalidVolume(Invalid):
    """The volume's state does not allow the request."""
    msg_fmt = 'Invalid volume: %(reason)s'


class VolumeMovedOn(InvalidVolume):
    """The volume left the status this service's work needs (deleted, reset, taken over)."""


class VolumeRevertConflict(InvalidVolume):
    """Revert refused by the volume's status: Cinder answers 409 here."""
    code = 409


class InvalidSnapshot(Invalid):
    """The snapshot's state does not allow the request."""
    msg_fmt = 'Invalid snapshot: %(reason)s'


class ServiceUnavailable(Invalid):
    """The volume service a manage request names is disabled, down or unknown (Cinder's
    400, for all its name)."""
    msg_fmt = 'Service is unavailable at this time.'


class InvalidBackup(Invalid):
    """A backup is not in a state (or shape) that allows the request."""
    msg_fmt = 'Invalid backup: %(reason)s'


class NotSupportedOperation(Invalid):
    """The backend cannot do this (a backup driver without force delete)."""
    msg_fmt = 'Operation not supported: %(operation)s.'
    code = 405


class SnapshotRevertConflict(InvalidSnapshot):
    """Revert refused by the snapshot's status: Cinder answers 409 here."""
    code = 409


class SnapshotMovedOn(InvalidSnapshot):
    """The snapshot left the status this service's work needs (deleted, reset, taken over)."""


class InvalidVolumeAttachMode(Invalid):
    """A read-only volume attached read-write."""
    msg_fmt = "Invalid attaching mode '%(mode)s' for volume %(volume_id)s."


class InvalidUUID(Invalid):
    """An instance uuid that is no uuid."""
    msg_fmt = 'Expected a UUID but received %(uuid)s.'


class ResourceConflict(Invalid):
    """The resource's state refuses the change (Cinder's 409 among its 400s)."""
    msg_fmt = 'Resource conflict: %(reason)s'
    code = 409


class InvalidVolumeMetadata(Invalid):
    """Volume metadata keys or values are unacceptable."""
    msg_fmt = 'Invalid metadata: %(reason)s'


class InvalidVolumeMetadataSize(Invalid):
    """A volume metadata key or value is too long."""
    msg_fmt = 'Invalid metadata size: %(reason)s'


class InvalidAvailabilityZone(Invalid):
    """No cinder-volume service serves the requested availability zone."""
    msg_fmt = "Availability zone '%(az)s' is invalid."


class InvalidAPIVersionString(Invalid):
    """OpenStack-API-Version could not be parsed."""
    msg_fmt = ('API Version String %(version)s is of invalid format. Must be of format '
               'MajorNum.MinorNum.')


class InvalidName(Invalid):
    """A `name` field is empty or blank (Cinder's `name` format checker)."""
    msg_fmt = "An invalid 'name' value was provided. %(reason)s"


class InvalidAuthKey(Invalid):
    """A transfer's auth key does not match the one it was created with."""
    msg_fmt = 'Invalid auth key: %(reason)s'


class InvalidVolumeType(Invalid):
    """The volume type cannot be used or changed this way."""
    msg_fmt = 'Invalid volume type: %(reason)s'


class VolumeTypeInUse(Invalid):
    """Volumes still use the type (the API answers 'Target volume type is still in use.')."""
    msg_fmt = ('Volume Type %(volume_type_id)s deletion is not allowed with volumes present '
               'with the type.')


class VolumeTypeEncryptionExists(Invalid):
    """The type already has live encryption specs."""
    msg_fmt = 'Volume type encryption for type %(type_id)s already exists.'


class VolumeTypeDefaultDeletionError(Invalid):
    """The type is `default_volume_type` or some project's default."""
    msg_fmt = ('The volume type %(volume_type_id)s is a default volume type and cannot be '
               'deleted.')


class InvalidGroupType(Invalid):
    """The group type cannot be used this way."""
    msg_fmt = 'Invalid group type: %(reason)s'


class GroupTypeInUse(Invalid):
    """Groups still use the type (the API answers 'Target group type is still in use.')."""
    msg_fmt = ('Group Type %(group_type_id)s deletion is not allowed with groups present '
               'with the type.')


class InvalidGroup(Invalid):
    """The group cannot be used or changed this way."""
    msg_fmt = 'Invalid Group: %(reason)s'


class InvalidGroupStatus(Invalid):
    """A reset_status names no status a group may be given."""
    msg_fmt = 'Invalid Group Status: %(reason)s'


class InvalidGroupSnapshot(Invalid):
    """The group snapshot cannot be used or changed this way."""
    msg_fmt = 'Invalid GroupSnapshot: %(reason)s'


class InvalidGroupSnapshotStatus(Invalid):
    """A reset_status names no status a group snapshot may be given."""
    msg_fmt = 'Invalid GroupSnapshot Status: %(reason)s'


class InvalidQoSSpecs(Invalid):
    """A QoS spec's consumer or keys cannot be accepted."""
    msg_fmt = 'Invalid qos specs: %(reason)s'


class QoSSpecsInUse(Invalid):
    """Volume types still use the QoS specs (the API answers 'Qos specs still in use.')."""
    msg_fmt = 'QoS Specs %(specs_id)s is still associated with entities.'

# --- 401 / 403 -------------------------------------------------------------

class NotAuthorized(CinderlikeException):
    """The caller may not do this."""
    msg_fmt = 'Not authorized.'
    code = 403
    safe = True


class PolicyNotAuthorized(NotAuthorized):
    """oslo.policy refused the action."""
    msg_fmt = "Policy doesn't allow %(action)s to be performed."


# --- 404 -------------------------------------------------------------------

class NotFound(CinderlikeException):
    """The resource does not exist (or is not visible to the caller)."""
    msg_fmt = 'Resource could not be found.'
    code = 404
    safe = True


class ServiceNotFound(NotFound):
    """No service row matches; Cinder names the host when the lookup had one."""
    msg_fmt = 'Service %(service_id)s could not be found.'

    def __init__(self, message=None, **kwargs):
        if message is None and kwargs.get('host'):
            message = (f"Service {kwargs.get('service_id')} could not be found on host "
                       f"{kwargs['host']}.")
        super().__init__(message, **kwargs)


class VolumeNotFound(NotFound):
    """No live volume with this id is visible to the caller."""
    msg_fmt = 'Volume %(volume_id)s could not be found.'


class VolumeAttachmentNotFound(NotFound):
    """No live attachment with this id is visible to the caller."""
    msg_fmt = 'Volume attachment could not be found with filter: %(filter)s.'


class VolumeMetadataNotFound(NotFound):
    """The volume has no metadata item with this key."""
    msg_fmt = 'Volume %(volume_id)s has no metadata with key %(metadata_key)s.'


class SnapshotNotFound(NotFound):
    """No live snapshot with this id is visible to the caller."""
    msg_fmt = 'Snapshot %(snapshot_id)s could not be found.'


class SnapshotMetadataNotFound(NotFound):
    """The snapshot has no metadata item with this key."""
    msg_fmt = 'Snapshot %(snapshot_id)s has no metadata with key %(metadata_key)s.'


class BackupNotFound(NotFound):
    """No live backup with this id is visible to the caller."""
    msg_fmt = 'Backup %(backup_id)s could not be found.'


class MarkerNotFound(NotFound):
    """A listing's `marker` names no visible row."""
    msg_fmt = 'Marker %(marker)s could not be found.'


class ClusterNotFound(NotFound):
    """No cluster row matches."""
    msg_fmt = 'Cluster %(id)s could not be found.'


class MessageNotFound(NotFound):
    """No user message with this id is visible to the caller."""
    msg_fmt = 'Message %(message_id)s could not be found.'


class TransferNotFound(NotFound):
    """No open transfer with this id is visible to the caller."""
    msg_fmt = 'Transfer %(transfer_id)s could not be found.'


class QuotaResourceUnknown(NotFound):
    """A reservation names a resource no quota knows."""
    msg_fmt = 'Unknown quota resources %(unknown)s.'


class GroupNotFound(NotFound):
    """No live group with this id is visible to the caller."""
    msg_fmt = 'Group %(group_id)s could not be found.'


class GroupSnapshotNotFound(NotFound):
    """No live group snapshot with this id is visible to the caller."""
    msg_fmt = 'GroupSnapshot %(group_snapshot_id)s could not be found.'


class GroupTypeNotFound(NotFound):
    """No live group type with this id is visible to the caller."""
    msg_fmt = 'Group type %(group_type_id)s could not be found.'


class GroupTypeNotFoundByName(GroupTypeNotFound):
    """No live group type with this name is visible to the caller."""
    msg_fmt = 'Group type with name %(group_type_name)s could not be found.'


class GroupTypeSpecsNotFound(NotFound):
    """The group type has no spec with this key."""
    msg_fmt = 'Group Type %(group_type_id)s has no specs with key %(group_specs_key)s.'


class VolumeTypeNotFound(NotFound):
    """No live volume type with this id is visible to the caller."""
    msg_fmt = 'Volume type %(volume_type_id)s could not be found.'


class VolumeTypeNotFoundByName(VolumeTypeNotFound):
    """No live volume type with this name is visible to the caller."""
    msg_fmt = 'Volume type with name %(volume_type_name)s could not be found.'


class VolumeTypeAccessNotFound(NotFound):
    """The project has no access row for the private type."""
    msg_fmt = ('Volume type access not found for %(volume_type_id)s / %(project_id)s '
               'combination.')


class VolumeTypeExtraSpecsNotFound(NotFound):
    """The type has no extra spec with this key."""
    msg_fmt = 'Volume Type %(volume_type_id)s has no extra specs with key %(extra_specs_key)s.'


class VolumeTypeEncryptionNotFound(NotFound):
    """The type has no live encryption specs (or not this key of them)."""
    msg_fmt = 'Volume type encryption for type %(type_id)s does not exist.'


class VolumeTypeProjectDefaultNotFound(NotFound):
    """The project has no default volume type of its own (3.62)."""
    msg_fmt = 'Default type for project %(project_id)s not found.'


class QoSSpecsNotFound(NotFound):
    """No live QoS specs have this id."""
    msg_fmt = 'No such QoS spec %(specs_id)s.'


class QoSSpecsKeyNotFound(NotFound):
    """The QoS specs have no spec with this key."""
    msg_fmt = 'QoS spec %(specs_id)s has no spec with key %(specs_key)s.'

# --- 409 -------------------------------------------------------------------

class Conflict(CinderlikeException):
    """The resource's current state does not allow the request."""
    msg_fmt = 'Conflict.'
    code = 409
    safe = True


class VolumeTypeExists(Conflict):
    """A live volume type already has this name (or id)."""
    msg_fmt = 'Volume Type %(id)s already exists.'


class VolumeTypeAccessExists(Conflict):
    """The project already has access to the private type."""
    msg_fmt = ('Volume type access for %(volume_type_id)s / %(project_id)s combination '
               'already exists.')


class GroupTypeExists(Conflict):
    """A live group type already has this name (or id)."""
    msg_fmt = 'Group Type %(id)s already exists.'


class QoSSpecsExists(Conflict):
    """Live QoS specs already have this name."""
    msg_fmt = 'QoS Specs %(specs_id)s already exists.'

# --- 413 -------------------------------------------------------------------

class OverQuota(CinderlikeException):
    """A quota would be exceeded; kwargs keep `overs`, `quotas` and `usages` for callers."""
    msg_fmt = 'Quota exceeded for resources: %(overs)s'
    code = 413
    safe = True
    # NOTE(retry): Cinder's QuotaError carries Retry-After: 0, echoed as `retryAfter`.
    headers = {'Retry-After': '0'}


class VolumeSizeExceedsAvailableQuota(OverQuota):
    """A volume or snapshot would pass a gigabytes quota."""
    msg_fmt = ('Requested volume or snapshot exceeds allowed %(name)s quota. Requested '
               '%(requested)sG, quota is %(quota)sG and %(consumed)sG has been consumed.')

    def __init__(self, message=None, **kwargs):
        kwargs.setdefault('name', 'gigabytes')
        super().__init__(message, **kwargs)


class VolumeSizeExceedsLimit(OverQuota):
    """A volume would be larger than `per_volume_gigabytes`."""
    msg_fmt = 'Requested volume size %(size)dG is larger than maximum allowed limit %(limit)dG.'


class VolumeBackupSizeExceedsAvailableQuota(OverQuota):
    """A backup would pass the backup_gigabytes quota."""
    msg_fmt = ('Requested backup exceeds allowed Backup gigabytes quota. Requested '
               '%(requested)sG, quota is %(quota)sG and %(consumed)sG has been consumed.')


class VolumeLimitExceeded(OverQuota):
    """One volume more would pass a volumes quota."""
    msg_fmt = "Maximum number of volumes allowed (%(allowed)d) exceeded for quota '%(name)s'."

    def __init__(self, message=None, **kwargs):
        kwargs.setdefault('name', 'volumes')
        super().__init__(message, **kwargs)


class SnapshotLimitExceeded(OverQuota):
    """One snapshot more would pass a snapshots quota."""
    msg_fmt = 'Maximum number of snapshots allowed (%(allowed)d) exceeded'


class BackupLimitExceeded(OverQuota):
    """One backup more would pass the backups quota."""
    msg_fmt = 'Maximum number of backups allowed (%(allowed)d) exceeded'


class GroupLimitExceeded(OverQuota):
    """One group more would pass the groups quota."""
    msg_fmt = 'Maximum number of groups allowed (%(allowed)d) exceeded'


class RequestTooLarge(CinderlikeException):
    """The request body is larger than `osapi_max_request_body_size`."""
    msg_fmt = 'Request is too large.'
    code = 413
    safe = True


class VolumeTypeDefaultMisconfiguredError(CinderlikeException):
    """`default_volume_type` names no live type (500, as Cinder)."""
    msg_fmt = ('The request cannot be fulfilled as the default volume type %(volume_type_name)s '
               'cannot be found.')

# --- daemons ---------------------------------------------------------------

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
