"""400 Invalid and its kin: the request is well-formed but cannot be honoured (a few answer
405, 406 or 409, as Cinder's do)."""

from cinderlike.exception.base import CinderlikeException


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
