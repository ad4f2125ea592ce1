"""cinderlike-backup: backups rows → the BackupRef a backup driver sees, and the user
messages of backup operations."""

from cinderlike import messages
from cinderlike.db import backups as db_backups
from cinderlike.drivers.backup import base


def ref_of(db, backup) -> base.BackupRef:
    """The driver's view of *backup*, its parent chain filled in up to the full backup."""
    parent = None
    for row in reversed(db_backups.chain(db, backup=backup)):
        parent = base.BackupRef(
            id=row.id, volume_id=row.volume_id, availability_zone=row.availability_zone,
            container=row.container, service_metadata=row.service_metadata,
            size=row.size or 0, created_at=row.created_at, parent=parent,
            name=row.display_name, description=row.display_description)
    return parent


def message(manager, ctx, backup_id: str, action, detail, error=None) -> None:
    """A user message about backup *backup_id* (Cinder's VOLUME_BACKUP events)."""
    messages.create(manager.db, ctx, conf=manager.conf, action=action,
                    resource_type=messages.Resource.VOLUME_BACKUP, resource_uuid=backup_id,
                    detail=detail, exception=error)
