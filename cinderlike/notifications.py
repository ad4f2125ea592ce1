"""Usage notifications as Cinder's volume_utils builds them: `volume.*` and `capacity.pool`.

The API (volume.update), the volume service (create/delete/resize, capacity.pool) and the usage
audit send them through oslo.messaging Notifiers; with no `[oslo_messaging_notifications]
driver` nothing is sent and no payload is built.
"""

import datetime

from cinderlike import rpc
from cinderlike.db import snapshots as db_snapshots
from cinderlike.db import volumes as db_volumes
from cinderlike.db.models import utcnow
from cinderlike.states.volumes import Status as VolumeStatus

# Columns of an attachment that go into a usage payload; connection_info and connector are
# left out because they can carry credentials.
_ATTACHMENT_FIELDS = ('id', 'volume_id', 'instance_uuid', 'attached_host', 'mountpoint',
                      'attach_time', 'detach_time', 'attach_mode', 'attach_status')


def _json_safe(value):
    return value.isoformat() if isinstance(value, datetime.datetime) else value


def attachment_usage(attachment) -> dict:
    return {field: _json_safe(getattr(attachment, field)) for field in _ATTACHMENT_FIELDS}


def volume_usage(volume, *, metadata, attachments, now: datetime.datetime) -> dict:
    """Cinder's `_usage_from_volume` fields for *volume* (a volumes row)."""
    status = volume.status
    if status == VolumeStatus.ERROR_MANAGING_DELETING:
        # NOTE(cinder): Cinder reports this internal state as plain 'deleting'.
        status = VolumeStatus.DELETING
    return {
        'tenant_id': volume.project_id,
        'host': volume.host,
        'user_id': volume.user_id,
        'availability_zone': volume.availability_zone,
        'volume_id': volume.id,
        'volume_type': volume.volume_type_id,
        'display_name': volume.display_name,
        'launched_at': (volume.launched_at or now).isoformat(),
        'created_at': (volume.created_at or now).isoformat(),
        'status': status,
        'snapshot_id': volume.snapshot_id,
        'size': volume.size,
        'replication_status': volume.replication_status,
        'replication_extended_status': volume.replication_extended_status,
        'replication_driver_data': volume.replication_driver_data,
        'metadata': dict(metadata),
        'volume_attachment': [attachment_usage(a) for a in attachments],
    }


class _Notifier:
    """Sends `<KIND>.<event>` notifications, publisher `<KIND>.<host>`."""

    KIND = ''

    def __init__(self, conf, *, host):
        self._notifier = rpc.get_notifier(conf, publisher_id=f'{self.KIND}.{host}')
        # NOTE(noop): oslo.messaging's is_enabled() is true with no driver at all (it only
        # compares the drivers to ['noop']), yet then nothing is sent either; the payload
        # queries are skipped too (they show in the create benchmark).
        self._sends = bool(set(conf.oslo_messaging_notifications.driver) - {'noop'})


class VolumeNotifier(_Notifier):
    """Sends `volume.<event>` for a volumes row, publisher `volume.<host>`."""

    KIND = 'volume'

    def __init__(self, conf, db, *, host):
        super().__init__(conf, host=host)
        self._db = db

    def info(self, ctx, volume, event: str, *, reload: bool = False, **extra) -> None:
        """`volume.<event>`, e.g. event='create.start'; *extra* overrides payload fields.

        *reload* reads the row again first (its state after the operation).
        """
        if not self._sends:
            return
        if reload:
            volume = db_volumes.get(self._db, volume_id=volume.id)
        metadata = db_volumes.get_metadata(self._db, volume_ids=[volume.id])[volume.id]
        attachments = db_volumes.get_attachments(self._db, volume_ids=[volume.id])[volume.id]
        payload = volume_usage(volume, metadata=metadata, attachments=attachments,
                               now=utcnow())
        payload.update(extra)
        self._notifier.info(ctx, f'volume.{event}', payload)


def capacity_usage(pool, *, virtual_free: float) -> dict:
    """Cinder's `_usage_from_capacity` fields for a pools row (allocated = the DB's claim)."""
    return {
        'name_to_id': pool.name,
        'total': pool.total_capacity_gb,
        'free': pool.free_capacity_gb,
        'allocated': pool.allocated_capacity_gb,
        'provisioned': pool.provisioned_capacity_gb,
        'virtual_free': virtual_free,
        'reported_at': _json_safe(pool.reported_at),
    }


def snapshot_usage(snapshot, *, volume, metadata: dict) -> dict:
    """Cinder's `_usage_from_snapshot` fields (deleted and metadata as strings, as Cinder)."""
    return {
        'tenant_id': snapshot.project_id,
        'user_id': snapshot.user_id,
        'availability_zone': volume.availability_zone if volume is not None else None,
        'volume_id': snapshot.volume_id,
        'volume_size': snapshot.volume_size,
        'snapshot_id': snapshot.id,
        'display_name': snapshot.display_name,
        'created_at': _json_safe(snapshot.created_at),
        'status': snapshot.status,
        'deleted': str(snapshot.deleted),
        'metadata': str(metadata),
    }


class SnapshotNotifier(_Notifier):
    """Sends `snapshot.<event>` for a snapshots row, publisher `snapshot.<host>`."""

    KIND = 'snapshot'

    def __init__(self, conf, db, *, host):
        super().__init__(conf, host=host)
        self._db = db

    def info(self, ctx, snapshot, event: str) -> None:
        """`snapshot.<event>`, e.g. event='create.end', for the row as given."""
        if not self._sends:
            return
        volume = db_volumes.get_any(self._db, volume_id=snapshot.volume_id)
        metadata = db_snapshots.get_metadata(self._db, snapshot_ids=[snapshot.id])[snapshot.id]
        self._notifier.info(ctx, f'snapshot.{event}',
                            snapshot_usage(snapshot, volume=volume, metadata=metadata))


def backup_usage(backup) -> dict:
    """Cinder's `_usage_from_backup` fields for a backups row."""
    return {
        'tenant_id': backup.project_id, 'user_id': backup.user_id,
        'availability_zone': backup.availability_zone, 'backup_id': backup.id,
        'host': backup.host, 'display_name': backup.display_name,
        'created_at': _json_safe(backup.created_at), 'status': backup.status,
        'volume_id': backup.volume_id, 'size': backup.size,
        'service_metadata': backup.service_metadata, 'service': backup.service,
        'fail_reason': backup.fail_reason, 'parent_id': backup.parent_id,
        'num_dependent_backups': backup.num_dependent_backups,
        'snapshot_id': backup.snapshot_id,
    }


class BackupNotifier(_Notifier):
    """Sends `backup.<event>` for a backups row, publisher `backup.<host>`."""

    KIND = 'backup'

    def info(self, ctx, backup, event: str, **extra) -> None:
        """`backup.<event>`, e.g. event='create.end'; *extra* adds payload fields."""
        if not self._sends:
            return
        self._notifier.info(ctx, f'backup.{event}', dict(backup_usage(backup), **extra))


def group_usage(group) -> dict:
    """Cinder's `_usage_from_group` fields for a groups row."""
    return {
        'tenant_id': group.project_id, 'user_id': group.user_id,
        'availability_zone': group.availability_zone, 'group_id': group.id,
        'name': group.name, 'created_at': _json_safe(group.created_at) or '',
        'status': group.status,
    }


class GroupNotifier(_Notifier):
    """Sends `group.<event>` for a groups row, publisher `group.<host>`."""

    KIND = 'group'

    def info(self, ctx, group, event: str) -> None:
        """`group.<event>`, e.g. event='create.end', for the row as given."""
        if not self._sends:
            return
        self._notifier.info(ctx, f'group.{event}', group_usage(group))


def group_snapshot_usage(group_snapshot) -> dict:
    """Cinder's `_usage_from_group_snapshot` fields for a group_snapshots row."""
    return {
        'tenant_id': group_snapshot.project_id, 'user_id': group_snapshot.user_id,
        'group_snapshot_id': group_snapshot.id, 'name': group_snapshot.name,
        'group_id': group_snapshot.group_id, 'group_type': group_snapshot.group_type_id,
        'created_at': _json_safe(group_snapshot.created_at) or '',
        'status': group_snapshot.status,
    }


class GroupSnapshotNotifier(_Notifier):
    """Sends `group_snapshot.<event>`, publisher `group_snapshot.<host>`."""

    KIND = 'group_snapshot'

    def info(self, ctx, group_snapshot, event: str) -> None:
        """`group_snapshot.<event>`, e.g. event='create.end', for the row as given."""
        if not self._sends:
            return
        self._notifier.info(ctx, f'group_snapshot.{event}', group_snapshot_usage(group_snapshot))
