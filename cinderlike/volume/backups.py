"""cinderlike-volume: what a backup host needs from the volume service (Cinder's
get_backup_device and the snapshot connection calls): the device to read — the volume, the
backup's snapshot, or a temporary snapshot of an in-use volume — and its removal.

NOTE(temp_snapshot): an in-use volume is always read through a temporary snapshot (Cinder's
`backup_use_temp_snapshot=True` path); the file driver's snapshot is a full copy, so it costs
what Cinder's temporary clone would, without a second volume row holding capacity.
"""

from oslo_log import log as logging

from cinderlike import exception, locks, messages
from cinderlike.backup import rpcapi as backup_rpcapi
from cinderlike.db import backups as db_backups
from cinderlike.db import snapshots as db_snapshots
from cinderlike.db import volumes as db_volumes
from cinderlike.drivers.volume import base
from cinderlike.states import snapshots as snapshot_states
from cinderlike.states import volumes as volume_states

LOG = logging.getLogger(__name__)


def _temp_snapshot(manager, ctx, backup, volume):
    """A snapshot of the volume as it is now, named for the backup (Cinder's
    `backup-snap-<volume id>`), consuming no quota; its row is on the backup."""
    with manager.db.writer() as s:
        snapshot = db_snapshots.create(manager.db, session=s, values={
            'volume_id': volume.id, 'user_id': backup.user_id, 'project_id': backup.project_id,
            'volume_size': volume.size, 'display_name': f'backup-snap-{volume.id}',
            'volume_type_id': volume.volume_type_id, 'progress': '0%', 'use_quota': False})
        db_backups.set_values(manager.db, backup_id=backup.id, session=s, expected=None,
                              values={'temp_snapshot_id': snapshot.id})
    try:
        manager.require_driver()
        update = manager.driver.create_snapshot(base.SnapshotRef.of(snapshot, volume)) or {}
    except Exception:
        LOG.exception('Backup %s: temporary snapshot of volume %s failed', backup.id,
                      volume.id)
        _drop_snapshot_row(manager, backup.id, snapshot.id)
        raise
    db_snapshots.MACHINE.finish(manager.db, row_id=snapshot.id, action='create',
                                values=dict(update, progress=snapshot_states.DONE_PROGRESS))
    LOG.info('Backup %s: temporary snapshot %s of in-use volume %s taken', backup.id,
             snapshot.id, volume.id)
    return snapshot


def _drop_snapshot_row(manager, backup_id: str, snapshot_id: str) -> None:
    with manager.db.writer() as s:
        db_snapshots.MACHINE.destroy(manager.db, row_id=snapshot_id, session=s)
        db_backups.set_values(manager.db, backup_id=backup_id, session=s, expected=None,
                              values={'temp_snapshot_id': None})


def get_backup_device(manager, ctx, *, backup_id: str) -> dict:
    """What the backup host reads: {'is_snapshot': bool, 'id': volume or snapshot id}.

    :raises BackupNotFound, VolumeNotFound, VolumeDriverException:
    """
    backup = db_backups.get(manager.db, backup_id=backup_id)
    if backup.snapshot_id:
        return {'is_snapshot': True, 'id': backup.snapshot_id}
    volume = db_volumes.get(manager.db, volume_id=backup.volume_id)
    if volume.previous_status == volume_states.Status.IN_USE:
        # NOTE(in-use): the attached host keeps writing; the backup reads a point in time.
        with manager.coordinator.get_lock(locks.delete_volume(volume.id)):
            return {'is_snapshot': True, 'id': _temp_snapshot(manager, ctx, backup, volume).id}
    return {'is_snapshot': False, 'id': volume.id}


def remove_backup_device(manager, ctx, *, backup_id: str) -> None:
    """Remove the backup's temporary snapshot, if it has one (every outcome, and the
    backup service's start-up cleanup)."""
    backup = db_backups.get_any(manager.db, backup_id=backup_id)
    if backup is None or not backup.temp_snapshot_id:
        return
    try:
        snapshot = db_snapshots.get(manager.db, snapshot_id=backup.temp_snapshot_id)
    except exception.SnapshotNotFound:
        snapshot = None
    if snapshot is not None:
        manager.require_driver()
        volume = db_volumes.get_any(manager.db, volume_id=snapshot.volume_id)
        manager.driver.delete_snapshot(base.SnapshotRef.of(snapshot, volume))
    _drop_snapshot_row(manager, backup_id, backup.temp_snapshot_id)
    LOG.info('Backup %s: temporary snapshot %s removed', backup_id, backup.temp_snapshot_id)


def _snapshot_ref(manager, snapshot_id: str) -> base.SnapshotRef:
    snapshot = db_snapshots.get(manager.db, snapshot_id=snapshot_id)
    return base.SnapshotRef.of(snapshot, db_volumes.get_any(manager.db,
                                                            volume_id=snapshot.volume_id))


def initialize_connection_snapshot(manager, ctx, *, snapshot_id: str, connector: dict) -> dict:
    """The snapshot's connection info for *connector*'s host.

    :raises VolumeBackendAPIException, DriverNotInitialized:
    """
    manager.require_driver()
    ref = _snapshot_ref(manager, snapshot_id)
    try:
        return manager.driver.initialize_connection_snapshot(ref, connector)
    except exception.VolumeBackendAPIException:
        raise
    except Exception as error:
        raise exception.VolumeBackendAPIException(
            data=f'Driver initialize connection failed (error: {error}).') from error


def terminate_connection_snapshot(manager, ctx, *, snapshot_id: str, connector: dict) -> None:
    """The driver stops serving the snapshot to *connector*'s host."""
    manager.require_driver()
    manager.driver.terminate_connection_snapshot(_snapshot_ref(manager, snapshot_id),
                                                 connector)


def remove_export_snapshot(manager, ctx, *, snapshot_id: str) -> None:
    """Undo the snapshot's export."""
    manager.require_driver()
    manager.driver.remove_export_snapshot(_snapshot_ref(manager, snapshot_id))


def restore_new_volume(manager, ctx, *, volume, backup_id: str) -> bool:
    """A volume created from a backup (Cinder's _create_from_backup, raw volume path):
    the backup goes `restoring` on a live backup host, which restores it with
    volume_is_new; when it cannot, the `restoring-backup` volume ends in `error` with a
    user message. True when the restore was handed over.
    """
    try:
        backup = db_backups.get(manager.db, backup_id=backup_id)
        host = backup_rpcapi.choose_host(manager.conf, manager.db, host=backup.host,
                                         availability_zone=backup.availability_zone)
        db_backups.MACHINE.begin(manager.db, row_id=backup_id, action='restore',
                                 values={'host': host, 'restore_volume_id': volume.id})
        manager.backup_api.restore_backup(
            ctx, backup_id=backup_id, volume_id=volume.id, volume_is_new=True, host=host)
    except Exception as error:
        LOG.exception('Volume %s: restore of backup %s could not start', volume.id, backup_id)
        if db_volumes.MACHINE.finish(manager.db, row_id=volume.id, action='restore_backup',
                                     error=True, status=volume_states.Status.ERROR):
            messages.create(manager.db, ctx, conf=manager.conf,
                            action=messages.Action.BACKUP_RESTORE,
                            resource_type=messages.Resource.VOLUME_BACKUP,
                            resource_uuid=backup_id,
                            detail=messages.Detail.BACKUP_INVALID_STATE
                            if isinstance(error, exception.InvalidBackup)
                            else messages.Detail.BACKUP_SERVICE_DOWN, exception=error)
        return False
    LOG.info('Volume %s created; backup %s restores into it on %s', volume.id, backup_id,
             host)
    return True
