"""cinderlike-api: the v3 microversions, as named constants and one ordered history.

Handlers compare `req.context.api_version` against the named constants; the version
documents and the negotiation middleware take their bounds from MIN_VERSION/MAX_VERSION.
"""

import dataclasses
import functools
import re

from cinderlike import exception

_VERSION_RE = re.compile(r'^([1-9]\d*)\.([1-9]\d*|0)$')


@functools.total_ordering
@dataclasses.dataclass(frozen=True)
class APIVersion:
    """A parsed `X.Y` microversion; ordered numerically (3.10 > 3.9)."""

    major: int
    minor: int

    @classmethod
    def parse(cls, text: str) -> 'APIVersion':
        """:raises InvalidAPIVersionString: when *text* is not `MajorNum.MinorNum`."""
        match = _VERSION_RE.match(text)
        if match is None:
            raise exception.InvalidAPIVersionString(version=text)
        return cls(int(match.group(1)), int(match.group(2)))

    def __lt__(self, other: 'APIVersion') -> bool:
        return (self.major, self.minor) < (other.major, other.minor)

    def __str__(self) -> str:
        return f'{self.major}.{self.minor}'

    def matches(self, minimum: str, maximum: str | None = None) -> bool:
        """True when this version lies in [minimum, maximum] (maximum open when None)."""
        key = (self.major, self.minor)
        if key < _bound(minimum):
            return False
        return maximum is None or key <= _bound(maximum)


@functools.lru_cache(maxsize=256)
def _bound(text: str) -> tuple[int, int]:
    """(major, minor) of a named version: views ask `matches` per field and per row."""
    version = APIVersion.parse(text)
    return version.major, version.minor


# Named versions this code branches on.
BASE = '3.0'
CLUSTER_SUPPORT = '3.7'
MANAGE_EXISTING_LIST = '3.8'
VOLUME_MIGRATE_CLUSTER = '3.16'
MANAGE_EXISTING_CLUSTER = '3.17'
REPLICATION_CLUSTER = '3.26'
# Volumes.
VOLUME_LIST_BOOTABLE = '3.2'
VOLUME_LIST_GLANCE_METADATA = '3.4'
VOLUME_LIST_GROUP = '3.10'
VOLUME_SUMMARY = '3.12'
GROUP_TYPE = '3.11'
GROUP_VOLUME = '3.13'
GROUP_SNAPSHOT_RESET_STATUS = '3.19'
GROUP_VOLUME_RESET_STATUS = '3.20'
GROUP_VOLUME_LIST = '3.25'
GROUP_SNAPSHOT_PAGINATION = '3.29'
GROUP_REPLICATION = '3.38'
GROUP_GROUPSNAPSHOT_PROJECT_ID = '3.58'
VOLUME_DETAIL_PROVIDER_ID = '3.21'
VOLUME_DELETE_FORCE = '3.23'
RESOURCE_FILTER = '3.31'
LIKE_FILTER = '3.34'
VOLUME_SUMMARY_METADATA = '3.36'
VOLUME_EXTEND_INUSE = '3.42'
SUPPORT_COUNT_INFO = '3.45'
SHARED_TARGETS_AND_SERVICE_FIELDS = '3.48'
SUPPORT_VOLUME_SCHEMA_CHANGES = '3.53'
VOLUME_TIME_COMPARISON_FILTER = '3.60'
VOLUME_CLUSTER_NAME = '3.61'
VOLUME_TYPE_ID_IN_VOL_DETAIL = '3.63'
ENCRYPTION_KEY_ID_IN_DETAILS = '3.64'
USE_QUOTA = '3.65'
SHARED_TARGETS_TRISTATE = '3.69'
# Snapshots and revert.
GROUP_SNAPSHOTS = '3.14'
SNAPSHOT_LIST_METADATA_FILTER = '3.22'
SNAPSHOT_SORT = '3.30'
VOLUME_REVERT = '3.40'
SNAPSHOT_LIST_USER_ID = '3.41'
SNAPSHOT_IN_USE = '3.66'
# Attachments.
NEW_ATTACH = '3.27'
NEW_ATTACH_COMPLETION = '3.44'
ATTACHMENT_CREATE_MODE_ARG = '3.54'
# Volume types.
SUPPORT_VOLUME_TYPE_FILTER = '3.52'
DEFAULT_TYPE_OVERRIDES = '3.62'
# Quotas, limits and user messages.
BACKUP_UPDATE = '3.9'
BACKUP_PROJECT = '3.18'
BACKUP_SORT_NAME = '3.37'
BACKUP_METADATA = '3.43'
VOLUME_CREATE_FROM_BACKUP = '3.47'
BACKUP_AZ = '3.51'
BACKUP_PROJECT_USER_ID = '3.56'

MESSAGES = '3.3'
MESSAGES_PAGINATION = '3.5'
LIMITS_ADMIN_FILTER = '3.39'
# Pools.
POOL_FILTER = '3.28'
# Services.
LOG_LEVEL = '3.32'
BACKEND_STATE_REPORT = '3.49'
# Workers.
WORKERS_CLEANUP = '3.24'
# Volume transfers.
TRANSFER_WITH_SNAPSHOTS = '3.55'
TRANSFER_WITH_HISTORY = '3.57'
SUPPORT_TRANSFER_PAGINATION = '3.59'
TRANSFER_ENCRYPTED_VOLUME = '3.70'
POOL_TYPE_FILTER = '3.35'

# Cinder's history, oldest first: what each version added.
VERSIONS = [
    '3.0',  # all v2 resources and extensions under /v3
    '3.1',  # visibility/protected on os-volume_upload_image
    '3.2',  # bootable list filter parsed as a boolean
    '3.3',  # user messages API
    '3.4',  # glance_metadata filter on volume lists
    '3.5',  # pagination of messages
    '3.6',  # empty name/description on consistency group update
    '3.7',  # clusters API; `cluster` in the os-services list
    '3.8',  # manageable volumes/snapshots listings
    '3.9',  # backup update
    '3.10',  # group_id filter on volume lists
    '3.11',  # group types and group specs
    '3.12',  # volumes summary
    '3.13',  # generic volume groups
    '3.14',  # group snapshots, group from source
    '3.15',  # Etag on volume metadata
    '3.16',  # migrate volume to a cluster
    '3.17',  # manageable listings by cluster
    '3.18',  # backup project attribute
    '3.19',  # group snapshot reset_status
    '3.20',  # group reset_status
    '3.21',  # provider_id in volume detail
    '3.22',  # metadata filter on snapshot lists
    '3.23',  # force on volume delete
    '3.24',  # workers/cleanup
    '3.25',  # volumes field in groups
    '3.26',  # failover action; cluster replication fields
    '3.27',  # attachments API
    '3.28',  # filters on get_pools
    '3.29',  # group snapshot filter/sort/pagination
    '3.30',  # sort snapshots by name
    '3.31',  # configurable resource query filters
    '3.32',  # os-services set-log/get-log
    '3.33',  # resource_filters API
    '3.34',  # `name~` like filters
    '3.35',  # volume_type filter on get_pools
    '3.36',  # metadata in volumes summary
    '3.37',  # sort backups by name
    '3.38',  # replication groups
    '3.39',  # project_id filter on limits
    '3.40',  # revert volume to snapshot
    '3.41',  # user_id in snapshots
    '3.42',  # extend in-use volume
    '3.43',  # backup metadata
    '3.44',  # attachment complete
    '3.45',  # `count` in volume/backup/snapshot lists
    '3.46',  # volume from a Nova zero-size image
    '3.47',  # volume from backup
    '3.48',  # shared_targets and service_uuid in volumes
    '3.49',  # `backend_state` in the os-services list
    '3.50',  # multiattach
    '3.51',  # cross-AZ backups
    '3.52',  # RESKEY:availability_zones; type filter by extra_specs
    '3.53',  # JSON-schema validation of request bodies
    '3.54',  # mode on attachment create
    '3.55',  # transfer snapshots with their volume
    '3.56',  # user_id in backups
    '3.57',  # transfer record details
    '3.58',  # project_id in groups and group snapshots
    '3.59',  # transfer pagination
    '3.60',  # time comparison filters on volume lists
    '3.61',  # cluster_name in volume detail for admins
    '3.62',  # default volume types per project
    '3.63',  # volume_type_id in volumes
    '3.64',  # encryption_key_id in volumes and backups
    '3.65',  # consumes_quota in volumes and snapshots
    '3.66',  # snapshots of in-use volumes without force
    '3.67',  # project_id optional in URLs
    '3.68',  # os-reimage
    '3.69',  # shared_targets tristate
    '3.70',  # encrypted volume transfers
    '3.71',  # os-extend_volume_completion
]
MIN_VERSION = APIVersion.parse(VERSIONS[0])
MAX_VERSION = APIVersion.parse(VERSIONS[-1])
# The `updated` stamp of the version document, Cinder's for 3.71.
UPDATED = '2023-08-31T00:00:00Z'
