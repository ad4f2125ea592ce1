"""cinderlike-api: volume_attachment rows → Cinder's attachment documents (3.27)."""

from oslo_serialization import jsonutils

from cinderlike.api.views.common import timestamp
from cinderlike.db.models import VolumeAttachment


def _time(value) -> str:
    # NOTE(cinder): an unset time is an empty string in Cinder's attachment views.
    return timestamp(value, missing='')


def summary(row: VolumeAttachment) -> dict:
    return {'id': row.id, 'status': row.attach_status, 'instance': row.instance_uuid,
            'volume_id': row.volume_id}


def detail(row: VolumeAttachment) -> dict:
    """The attachment with its times, mode and the connection info the driver gave."""
    return dict(summary(row), attached_at=_time(row.attach_time),
                detached_at=_time(row.detach_time), attach_mode=row.attach_mode,
                connection_info=jsonutils.loads(row.connection_info)
                if row.connection_info else {})


def one(row: VolumeAttachment) -> dict:
    return {'attachment': detail(row)}


def collection(rows: list[VolumeAttachment], *, detailed: bool = False) -> dict:
    render = detail if detailed else summary
    return {'attachments': [render(r) for r in rows]}
