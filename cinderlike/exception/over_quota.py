"""413: a quota would be exceeded (OverQuota, with Retry-After), or the request body is
too large."""

from cinderlike.exception.base import CinderlikeException


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
