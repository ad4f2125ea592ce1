"""User messages: why an asynchronous operation failed, in Cinder's fixed vocabulary.

The scheduler and the volume/backup services record one with create(); cinderlike-api shows
them (GET /messages, 3.3). Free text never reaches users: an event is a resource type, an
action and a detail, whose ids and texts are Cinder's (cinder/message/message_field.py).
"""

import datetime

from oslo_log import log as logging

from cinderlike.db import messages as db_messages
from cinderlike.db.models import utcnow


class Resource:
    VOLUME = 'VOLUME'
    VOLUME_SNAPSHOT = 'VOLUME_SNAPSHOT'
    VOLUME_BACKUP = 'VOLUME_BACKUP'


class Action:
    SCHEDULE_ALLOCATE_VOLUME = ('001', 'schedule allocate volume')
    ATTACH_VOLUME = ('002', 'attach volume')
    COPY_VOLUME_TO_IMAGE = ('003', 'copy volume to image')
    UPDATE_ATTACHMENT = ('004', 'update attachment')
    COPY_IMAGE_TO_VOLUME = ('005', 'copy image to volume')
    UNMANAGE_VOLUME = ('006', 'unmanage volume')
    EXTEND_VOLUME = ('007', 'extend volume')
    CREATE_VOLUME_FROM_BACKEND = ('008', 'create volume from backend storage')
    SNAPSHOT_CREATE = ('009', 'create snapshot')
    SNAPSHOT_DELETE = ('010', 'delete snapshot')
    SNAPSHOT_UPDATE = ('011', 'update snapshot')
    SNAPSHOT_METADATA_UPDATE = ('012', 'update snapshot metadata')
    BACKUP_CREATE = ('013', 'create backup')
    BACKUP_DELETE = ('014', 'delete backup')
    BACKUP_RESTORE = ('015', 'restore backup')


class Detail:
    UNKNOWN_ERROR = ('001', 'An unknown error occurred.')
    DRIVER_NOT_INITIALIZED = ('002', 'Driver is not initialized at present.')
    NO_BACKEND_AVAILABLE = ('003', 'Could not find any available weighted backend.')
    FAILED_TO_UPLOAD_VOLUME = ('004', 'Failed to upload volume to image at backend.')
    VOLUME_ATTACH_MODE_INVALID = ('005', "Volume's attach mode is invalid.")
    QUOTA_EXCEED = ('006', 'Not enough quota resource for operation.')
    NOT_ENOUGH_SPACE_FOR_IMAGE = ('007', 'Image used for creating volume exceeds available '
                                         'space.')
    UNMANAGE_ENC_NOT_SUPPORTED = ('008', 'Unmanaging encrypted volumes is not supported.')
    NOTIFY_COMPUTE_SERVICE_FAILED = ('009', 'Compute service failed to extend volume.')
    DRIVER_FAILED_EXTEND = ('010', 'Volume Driver failed to extend volume.')
    SIGNATURE_VERIFICATION_FAILED = ('011', 'Image signature verification failed.')
    DRIVER_FAILED_CREATE = ('012', 'Driver failed to create the volume.')
    SNAPSHOT_CREATE_ERROR = ('013', 'Snapshot failed to create.')
    SNAPSHOT_UPDATE_METADATA_FAILED = ('014', 'Volume snapshot update metadata failed.')
    SNAPSHOT_IS_BUSY = ('015', 'Snapshot is busy.')
    SNAPSHOT_DELETE_ERROR = ('016', 'Snapshot failed to delete.')
    BACKUP_INVALID_STATE = ('017', 'Backup status is invalid.')
    BACKUP_SERVICE_DOWN = ('018', 'Backup service is down.')
    BACKUP_CREATE_DEVICE_ERROR = ('019', 'Failed to get backup device from the volume '
                                         'service.')
    BACKUP_CREATE_DRIVER_ERROR = ('020', 'Backup driver failed to create backup.')
    ATTACH_ERROR = ('021', 'Failed to attach volume.')
    DETACH_ERROR = ('022', 'Failed to detach volume.')
    BACKUP_CREATE_CLEANUP_ERROR = ('023', 'Cleanup of temporary volume/snapshot failed.')
    BACKUP_SCHEDULE_ERROR = ('024', 'Backup failed to schedule. Service not found for '
                                    'creating backup.')
    BACKUP_DELETE_DRIVER_ERROR = ('025', 'Backup driver failed to delete backup.')
    BACKUP_RESTORE_ERROR = ('026', 'Backup driver failed to restore backup.')
    VOLUME_INVALID_STATE = ('027', 'Volume status is invalid.')


ACTIONS = dict(value for name, value in vars(Action).items() if name.isupper())
DETAILS = dict(value for name, value in vars(Detail).items() if name.isupper())

# An exception of one of these class names decides the detail whatever the caller passed.
EXCEPTION_DETAILS = {
    'DriverNotInitialized': Detail.DRIVER_NOT_INITIALIZED,
    'NoValidBackend': Detail.NO_BACKEND_AVAILABLE,
    'InvalidVolumeAttachMode': Detail.VOLUME_ATTACH_MODE_INVALID,
    'ImageLimitExceeded': Detail.QUOTA_EXCEED,
    'BackupLimitExceeded': Detail.QUOTA_EXCEED,
    'SnapshotLimitExceeded': Detail.QUOTA_EXCEED,
    'ImageTooBig': Detail.NOT_ENOUGH_SPACE_FOR_IMAGE,
    'SnapshotIsBusy': Detail.SNAPSHOT_IS_BUSY,
}

LOG = logging.getLogger(__name__)


def detail_id(exception: Exception | None, detail: tuple[str, str] | None) -> str:
    """Cinder's translate_detail_id: a mapped exception wins, then *detail*, else unknown."""
    if isinstance(exception, Exception) and type(exception).__name__ in EXCEPTION_DETAILS:
        return EXCEPTION_DETAILS[type(exception).__name__][0]
    if detail in DETAILS.items():
        return detail[0]
    return Detail.UNKNOWN_ERROR[0]


def user_message(action_id: str | None, detail_id_: str | None) -> str:
    """The text users read: '<action>:<detail>' (Cinder's translate_action/translate_detail)."""
    action = ACTIONS.get(action_id or '', 'unknown action')
    return f'{action}:{DETAILS.get(detail_id_ or "", Detail.UNKNOWN_ERROR[1])}'


def create(db, ctx, *, conf, action: tuple[str, str], resource_type: str = Resource.VOLUME,
           resource_uuid: str | None = None, detail: tuple[str, str] | None = None,
           exception: Exception | None = None, level: str = 'ERROR',
           project_id: str | None = None, session=None) -> None:
    """Record a user message for *ctx*'s project (or *project_id*: the resource's, when an
    admin context of a cleanup decides), kept `message_ttl` seconds; in *session*'s
    transaction when given, so it commits with the status it explains.

    Never raises: a message that cannot be written must not turn a handled failure into a
    new one (Cinder logs and carries on too). In a *session* it is written under a
    savepoint, so a failed INSERT undoes only itself; that session must have written
    already (NOTE(sqlite): pysqlite begins a transaction at its first write, and a
    savepoint opened before it would be the transaction, its release a commit).
    """
    the_detail = detail_id(exception, detail)
    row = {
        'project_id': project_id or ctx.project_id, 'request_id': ctx.request_id,
        'resource_type': resource_type, 'resource_uuid': resource_uuid,
        'action_id': action[0], 'detail_id': the_detail, 'message_level': level,
        'event_id': f'VOLUME_{resource_type}_{action[0]}_{the_detail}',
        'expires_at': utcnow() + datetime.timedelta(seconds=conf.message_ttl),
    }
    LOG.info('Creating message record for request_id = %s', ctx.request_id)
    try:
        if session is None:
            db_messages.create(db, values=row)
        else:
            with session.begin_nested():
                db_messages.create(db, values=row, session=session)
    except Exception:
        LOG.exception('Failed to create message record for request_id %s', ctx.request_id)


def purge_expired(db) -> int:
    """Delete messages past their `expires_at` (the scheduler's _clean_expired_messages)."""
    count = db_messages.purge_expired(db)
    LOG.info('Deleted %s expired messages.', count)
    return count
