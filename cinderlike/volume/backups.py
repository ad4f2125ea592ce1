"""cinderlike-volume: what a backup host needs from the volume service (Cinder's
get_backup_device and the snapshot connection calls): the device to read — the volume, the
backup's snapshot, or a temporary copy of an in-use volume — and the copy's removal.

NOTE(temporary): as Cinder's driver, the backend's `backup_use_temp_snapshot` picks the
copy. False (Cinder's default): a temporary volume cloned from the in-use volume (or made
from the snapshot a backup names), `backing-up`, holding its capacity claim on the pool but
no quota. True: a temporary snapshot of the in-use volume, and a snapshot is read as it is.
"""

from oslo_log import log as logging

from cinderlike import exception, locks, messages
from cinderlike.backup import rpcapi as backup_rpcapi
from cinderlike.db import backups as db_backups
from cinderlike.db import pools as db_pools
from cinderlike.db import snapshots as db_snapshots
from cinderlike.db import volumes as db_volumes
from cinderlike.db.models import utcnow
from cinderlike.drivers.volume import base
from cinderlike.states import snapshots as snapshot_states
from cinderlike.states import volumes as volume_states

LOG = logging.getLogger(__name__)

V = volume_states.Status


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


def _temp_volume(manager, ctx, backup, volume, snapshot=None):
    """A volume cloned from *volume* (or made from *snapshot*), named for the backup
    (Cinder's `backup-vol-<volume id>`), `backing-up`, consuming no quota; it claims its
    size on the volume's pool, and its row is on the backup.

    :raises VolumeBackendAPIException: the pool is full, or what the driver raised.
    """
    with manager.db.writer() as s:
        temp = db_volumes.create(manager.db, session=s, values={
            'size': volume.size, 'display_name': f'backup-vol-{volume.id}',
            'host': volume.host, 'cluster_name': volume.cluster_name,
            'user_id': backup.user_id, 'project_id': backup.project_id,
            'status': V.CREATING, 'attach_status': volume_states.AttachStatus.DETACHED,
            'availability_zone': volume.availability_zone,
            'volume_type_id': volume.volume_type_id, 'use_quota': False})
        if not db_pools.claim(manager.db, pool=db_pools.pool_of(temp), size_gb=temp.size,
                              session=s):
            raise exception.VolumeBackendAPIException(
                data=f'No room on pool {db_pools.pool_of(temp)} for the temporary volume '
                     f'of backup {backup.id}.')
        db_backups.set_values(manager.db, backup_id=backup.id, session=s, expected=None,
                              values={'temp_volume_id': temp.id})
    ref = base.VolumeRef.of(temp)
    try:
        manager.require_driver()
        if snapshot is None:
            update = manager.driver.create_cloned_volume(ref, base.VolumeRef.of(volume))
        else:
            update = manager.driver.create_volume_from_snapshot(
                ref, base.SnapshotRef.of(snapshot, volume))
    except Exception:
        LOG.exception('Backup %s: temporary volume of volume %s failed', backup.id,
                      volume.id)
        _drop_volume_row(manager, backup.id, temp)
        raise
    db_volumes.MACHINE.finish(manager.db, row_id=temp.id, action='create',
                              status=V.BACKING_UP,
                              values=dict(update or {}, launched_at=utcnow()))
    LOG.info('Backup %s: temporary volume %s of volume %s made', backup.id, temp.id,
             volume.id)
    return temp


def _drop_volume_row(manager, backup_id: str, temp) -> None:
    """The temporary volume's row goes with its capacity claim, in one transaction."""
    with manager.db.writer() as s:
        if db_volumes.MACHINE.destroy(manager.db, row_id=temp.id, session=s,
                                      where=[db_volumes.Volume.status.in_(
                                          (V.CREATING, V.BACKING_UP))]):
            db_pools.release(manager.db, pool=db_pools.pool_of(temp), size_gb=temp.size,
                             session=s)
        db_backups.set_values(manager.db, backup_id=backup_id, session=s, expected=None,
                              values={'temp_volume_id': None})


def get_backup_device(manager, ctx, *, backup_id: str) -> dict:
    """What the backup host reads: {'is_snapshot': bool, 'id': volume or snapshot id}.

    :raises BackupNotFound, VolumeNotFound, VolumeDriverException:
    """
    backup = db_backups.get(manager.db, backup_id=backup_id)
    volume = db_volumes.get(manager.db, volume_id=backup.volume_id)
    use_snapshot = manager.configuration.backup_use_temp_snapshot
    if backup.snapshot_id and use_snapshot:
        return {'is_snapshot': True, 'id': backup.snapshot_id}
    if backup.snapshot_id:
        snapshot = db_snapshots.get(manager.db, snapshot_id=backup.snapshot_id)
        with manager.coordinator.get_lock(locks.delete_volume(volume.id)):
            temp = _temp_volume(manager, ctx, backup, volume, snapshot)
        return {'is_snapshot': False, 'id': temp.id}
    if volume.previous_status != V.IN_USE:
        return {'is_snapshot': False, 'id': volume.id}
    # NOTE(in-use): the attached host keeps writing; the backup reads a point in time.
    with manager.coordinator.get_lock(locks.delete_volume(volume.id)):
        if use_snapshot:
            return {'is_snapshot': True, 'id': _temp_snapshot(manager, ctx, backup, volume).id}
        return {'is_snapshot': False, 'id': _temp_volume(manager, ctx, backup, volume).id}


def remove_backup_device(manager, ctx, *, backup_id: str) -> None:
    """Remove the backup's temporary volume or snapshot, if it has one (every outcome, and
    the backup service's start-up cleanup)."""
    backup = db_backups.get_any(manager.db, backup_id=backup_id)
    if backup is None:
        return
    if backup.temp_volume_id:
        _remove_temp_volume(manager, backup_id, backup.temp_volume_id)
    if backup.temp_snapshot_id:
        _remove_temp_snapshot(manager, backup_id, backup.temp_snapshot_id)


def _remove_temp_volume(manager, backup_id: str, temp_volume_id: str) -> None:
    temp = db_volumes.get_any(manager.db, volume_id=temp_volume_id)
    if temp is not None and not temp.deleted:
        manager.require_driver()
        ref = base.VolumeRef.of(temp)
        manager.driver.remove_export(ref)
        manager.driver.delete_volume(ref)
        _drop_volume_row(manager, backup_id, temp)
    else:
        db_backups.set_values(manager.db, backup_id=backup_id, expected=None,
                              values={'temp_volume_id': None})
    LOG.info('Backup %s: temporary volume %s removed', backup_id, temp_volume_id)


def _remove_temp_snapshot(manager, backup_id: str, snapshot_id: str) -> None:
    try:
        snapshot = db_snapshots.get(manager.db, snapshot_id=snapshot_id)
    except exception.SnapshotNotFound:
        snapshot = None
    if snapshot is not None:
        manager.require_driver()
        volume = db_volumes.get_any(manager.db, volume_id=snapshot.volume_id)
        ref = base.SnapshotRef.of(snapshot, volume)
        manager.driver.remove_export_snapshot(ref)
        manager.driver.delete_snapshot(ref)
    _drop_snapshot_row(manager, backup_id, snapshot_id)
    LOG.info('Backup %s: temporary snapshot %s removed', backup_id, snapshot_id)


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
        update = manager.driver.create_export_snapshot(ref, connector)
    except exception.CinderlikeException as error:
        raise exception.VolumeBackendAPIException(
            data=f'Create export for snapshot failed ({error.msg}).') from error
    if update:
        db_snapshots.update(manager.db, snapshot_id=snapshot_id, values=update)
        ref = _snapshot_ref(manager, snapshot_id)
    try:
        return manager.driver.initialize_connection_snapshot(ref, connector)
    except Exception as error:
        LOG.exception('Snapshot %s: driver failed to initialize the connection', snapshot_id)
        manager.driver.remove_export_snapshot(ref)
        if isinstance(error, exception.VolumeBackendAPIException):
            raise
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
