"""`volume.*` notifications of the volume service (cinderlike-volume), publisher `volume.<host>`.

The payload is cinderlike/notifications.py's usage payload of the row, as Cinder's
notify_about_volume_usage sends it.
"""

from cinderlike import notifications, rpc
from cinderlike.db import volumes as db_volumes
from cinderlike.db.models import utcnow


class VolumeNotifier:
    """Sends `volume.<event>` for a volumes row, reading its metadata and attachments."""

    def __init__(self, conf, db, *, host):
        self._notifier = rpc.get_notifier(conf, publisher_id=f'volume.{host}')
        self._db = db

    def info(self, ctx, volume, event: str, *, reload: bool = False, **extra) -> None:
        """`volume.<event>`, e.g. event='create.start'; *extra* overrides payload fields.

        *reload* reads the row again first (its state after the operation).
        """
        # NOTE(noop): with no `[oslo_messaging_notifications] driver` nothing is sent, so
        # the payload queries are skipped too (they show in the create benchmark).
        if not self._notifier.is_enabled():
            return
        if reload:
            volume = db_volumes.get(self._db, volume_id=volume.id)
        metadata = db_volumes.get_metadata(self._db, volume_ids=[volume.id])[volume.id]
        attachments = db_volumes.get_attachments(self._db, volume_ids=[volume.id])[volume.id]
        payload = notifications.volume_usage(volume, metadata=metadata,
                                             attachments=attachments, now=utcnow())
        payload.update(extra)
        self._notifier.info(ctx, f'volume.{event}', payload)
