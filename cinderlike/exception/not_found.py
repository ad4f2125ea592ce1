"""404 NotFound: the resource does not exist, or is not visible to the caller."""

from cinderlike.exception.base import CinderlikeException


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
