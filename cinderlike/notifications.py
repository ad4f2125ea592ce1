"""Usage notification payloads, as Cinder's volume_utils builds them for `volume.*` events.

Whoever emits (the usage audit now, the volume manager later) sends them with an
oslo.messaging Notifier whose publisher is `volume.<host>`.
"""

import datetime

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
    if status == 'error_managing_deleting':
        # NOTE(cinder): Cinder reports this internal state as plain 'deleting'.
        status = 'deleting'
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
