"""cinderlike-api: backups rows → Cinder's summary, detail, restore, export and list documents.

The list and create show id, name and links; show and the detail list show every field of
the backup at the request's microversion (metadata 3.43, encryption_key_id 3.64), plus the
admin attributes (project 3.18, user 3.56) when the caller's policy allows them.
"""

from cinderlike.api import microversions as mv
from cinderlike.api.views.common import Links, timestamp
from cinderlike.db.models import Backup

_PROJECT_ATTR = 'os-backup-project-attr:project_id'
COLLECTION = 'backups'


def summary(backup: Backup, links: Links) -> dict:
    """The fields of the short view (list, create, update, import)."""
    return {'id': backup.id, 'name': backup.display_name,
            'links': links.item(backup.id, COLLECTION)}


def detail(backup: Backup, metadata: dict, links: Links, *, version,
           attributes: bool) -> dict:
    """The view of one backup at *version*; *attributes* adds its project and user."""
    shown = {
        'id': backup.id, 'status': backup.status, 'size': backup.size,
        'object_count': backup.object_count, 'availability_zone': backup.availability_zone,
        'container': backup.container, 'created_at': timestamp(backup.created_at),
        'updated_at': timestamp(backup.updated_at), 'name': backup.display_name,
        'description': backup.display_description, 'fail_reason': backup.fail_reason,
        'volume_id': backup.volume_id, 'links': links.item(backup.id, COLLECTION),
        'is_incremental': backup.parent_id is not None,
        'has_dependent_backups': bool(backup.num_dependent_backups),
        'snapshot_id': backup.snapshot_id, 'data_timestamp': timestamp(backup.data_timestamp),
    }
    if version.matches(mv.BACKUP_METADATA):
        shown['metadata'] = metadata
    if version.matches(mv.ENCRYPTION_KEY_ID_IN_DETAILS) and backup.encryption_key_id:
        shown['encryption_key_id'] = backup.encryption_key_id
    if attributes and version.matches(mv.BACKUP_PROJECT):
        shown[_PROJECT_ATTR] = backup.project_id
    if attributes and version.matches(mv.BACKUP_PROJECT_USER_ID):
        shown['user_id'] = backup.user_id
    return shown


def restore(*, backup_id: str, volume_id: str, volume_name: str | None) -> dict:
    return {'restore': {'backup_id': backup_id, 'volume_id': volume_id,
                        'volume_name': volume_name}}


def export(record: dict) -> dict:
    return {'backup-record': {'backup_service': record['backup_service'],
                              'backup_url': record['backup_url']}}
