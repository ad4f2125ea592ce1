"""cinderlike-api: backup business rules — checks, quota, state CAS via db/, the RPC casts.

Cinder's backup/api.py. A backup row is inserted `creating` in the same transaction that
moves its volume (or snapshot) to `backing-up`, locks its parent and reserves and commits
its quota, so a refused or lost request writes nothing and holds no quota.
"""

import base64
import binascii
import json

from oslo_log import log as logging

from cinderlike import exception, quota
from cinderlike.api import casting
from cinderlike.api.flows import create_volume
from cinderlike.api.operations import volumes as volume_operations
from cinderlike.api.operations.volumes import scope
from cinderlike.backup import rpcapi as backup_rpcapi
from cinderlike.db import backups as db_backups
from cinderlike.db import snapshots as db_snapshots
from cinderlike.db import volumes as db_volumes
from cinderlike.states import backups as states
from cinderlike.states import snapshots as snapshot_states
from cinderlike.states import volumes as volume_states

LOG = logging.getLogger(__name__)

V = volume_states.Status


def get(db, ctx, *, backup_id: str):
    """:raises BackupNotFound: also for another project's backup, as Cinder."""
    return db_backups.get(db, backup_id=backup_id, project_id=scope(ctx))


def _deltas(size: int) -> dict[str, int]:
    return {'backups': 1, 'backup_gigabytes': size}


def _reserver(conf, db, ctx, size: int):
    """reserve(session) of one backup of *size* GiB (backups + backup_gigabytes)."""
    def reserve(session):
        return quota.reserve(db, ctx, conf=conf, project_id=ctx.project_id,
                             deltas=_deltas(size), session=session)
    return reserve


def _check_source(db, ctx, volume, snapshot_id: str | None, force: bool):
    """Cinder's checks of what is backed up, in its order; the snapshot or None.

    :raises SnapshotNotFound, InvalidVolume, InvalidSnapshot:
    """
    if snapshot_id:
        snapshot = db_snapshots.get(db, snapshot_id=snapshot_id, project_id=scope(ctx))
        if snapshot.volume_id != volume.id:
            raise exception.InvalidVolume(
                reason=f'Volume {volume.id} does not match with snapshot.volume_id '
                       f'{snapshot.volume_id}.')
        if snapshot.status != snapshot_states.Status.AVAILABLE:
            raise exception.InvalidSnapshot(
                reason='Snapshot to be backed up must be available, but the current status '
                       f'is "{snapshot.status}".')
        return snapshot
    if volume.status not in (V.AVAILABLE, V.IN_USE):
        raise exception.InvalidVolume(
            reason='Volume to be backed up must be available or in-use, but the current '
                   f'status is "{volume.status}".')
    if volume.status == V.IN_USE and not force:
        raise exception.InvalidVolume(reason='Backing up an in-use volume must use the force '
                                             'flag.')
    return None


def create(conf, db, rpc, ctx, *, volume, name: str | None, description: str | None,
           container: str | None, incremental: bool, force: bool, snapshot_id: str | None,
           metadata: dict | None, availability_zone: str | None):
    """Insert a `creating` backup of *volume* and cast to the scheduler; the new row.

    :raises SnapshotNotFound, InvalidVolume, InvalidSnapshot, InvalidBackup,
        BackupLimitExceeded, VolumeBackupSizeExceedsAvailableQuota:
    """
    snapshot = _check_source(db, ctx, volume, snapshot_id, force)
    parent = None
    if incremental:
        parent = db_backups.latest_available(
            db, volume_id=volume.id, project_id=ctx.project_id,
            before=snapshot.created_at if snapshot is not None else None)
        if parent is None:
            raise exception.InvalidBackup(reason=db_backups.NO_PARENT)
    # NOTE(posix): an incremental posix backup can only be made where its parent's
    # objects are: it goes to the parent's host (Cinder's rule).
    host = parent.host if parent is not None and 'posix' in (parent.service or '') else None
    backup = db_backups.create(
        db, metadata=metadata, source_action='backup_in_use' if force else 'backup',
        reserve=_reserver(conf, db, ctx, volume.size), values={
            'user_id': ctx.user_id, 'project_id': ctx.project_id, 'volume_id': volume.id,
            'display_name': name, 'display_description': description,
            'container': container, 'parent_id': parent.id if parent else None,
            'size': volume.size, 'snapshot_id': snapshot_id, 'host': host,
            'data_timestamp': snapshot.created_at if snapshot is not None else None,
            'availability_zone': availability_zone,
            'encryption_key_id': volume.encryption_key_id})
    casting.send(lambda: rpc.scheduler.create_backup(ctx, backup_id=backup.id),
                 undo=lambda: db_backups.undo_create(db, backup=backup,
                                                     deltas=_deltas(volume.size)),
                 resource='Backup', resource_id=backup.id, what='create_backup to the scheduler')
    return backup


def delete(conf, db, rpc, ctx, *, backup_id: str, force: bool = False) -> None:
    """CAS into `deleting` on a live backup service and cast the delete to it.

    :raises BackupNotFound, InvalidBackup, NotSupportedOperation (405), ServiceNotFound:
    """
    backup = get(db, ctx, backup_id=backup_id)
    transition = db_backups.MACHINE.table['force_delete' if force else 'delete']
    if not transition.allows(backup.status):
        raise db_backups.MACHINE.refusal('delete', backup)
    host = backup_rpcapi.choose_host(conf, db, host=backup.host,
                                     availability_zone=backup.availability_zone)
    if force and not rpc.backup.check_support_to_force_delete(ctx, host=host):
        raise exception.NotSupportedOperation(operation='force delete')
    action = 'force_delete' if force else 'delete'
    db_backups.MACHINE.begin(db, row_id=backup_id, action=action, values={'host': host})
    # NOTE(undo): the status and host it had, read before the CAS; its transition's
    # allowed states are the only ones it can have come from.
    casting.send(lambda: rpc.backup.delete_backup(ctx, backup_id=backup_id, host=host),
                 undo=lambda: db_backups.MACHINE.finish(
                     db, row_id=backup_id, action=action, status=backup.status,
                     values={'host': backup.host}),
                 resource='Backup', resource_id=backup_id, what='delete_backup')


def restore(conf, db, rpc, ctx, *, backup_id: str, volume_id: str) -> tuple:
    """Restore an available backup into an existing available volume at least its size;
    (backup, volume).

    :raises BackupNotFound, InvalidBackup, VolumeNotFound, InvalidVolume, ServiceNotFound:
    """
    backup = get(db, ctx, backup_id=backup_id)
    if backup.status != states.Status.AVAILABLE:
        raise exception.InvalidBackup(reason='Backup status must be available')
    if backup.size is None:
        raise exception.InvalidBackup(reason='Backup to be restored has invalid size')
    volume = db_volumes.get(db, volume_id=volume_id, project_id=scope(ctx))
    if volume.status != V.AVAILABLE:
        raise exception.InvalidVolume(reason='Volume to be restored to must be available')
    if backup.size > volume.size:
        raise exception.InvalidVolume(
            reason=f'volume size {volume.size} is too small to restore backup of size '
                   f'{backup.size}.')
    host = backup_rpcapi.choose_host(conf, db, host=backup.host,
                                     availability_zone=backup.availability_zone)
    db_backups.begin_restore(db, backup_id=backup_id, volume_id=volume_id,
                             values={'host': host})

    def undo():
        with db.writer() as s:
            if not db_backups.MACHINE.finish(db, row_id=backup_id, action='restore',
                                             values={'host': backup.host}, session=s):
                return False
            db_volumes.MACHINE.finish(db, row_id=volume_id, action='restore_backup',
                                      status=V.AVAILABLE, session=s)
        return True
    casting.send(lambda: rpc.backup.restore_backup(
        ctx, backup_id=backup_id, volume_id=volume_id, volume_is_new=False, host=host),
        undo=undo, resource='Backup', resource_id=backup_id, what='restore_backup')
    return backup, volume


def restore_to_new(conf, db, rpc, enforcer, ctx, *, backup_id: str, name: str | None) -> tuple:
    """Restore an available backup into a new volume of its size (Cinder's
    `restore_backup_<id>`); (backup, volume). The volume is created from the backup
    (POST /volumes with backup_id): the backup service restores it once the volume
    service made it.

    :raises BackupNotFound, InvalidBackup, OverQuota:
    """
    backup = get(db, ctx, backup_id=backup_id)
    if backup.status != states.Status.AVAILABLE:
        raise exception.InvalidBackup(reason='Backup status must be available')
    if backup.size is None:
        raise exception.InvalidBackup(reason='Backup to be restored has invalid size')
    request = create_volume.CreateRequest(
        size=backup.size, name=name or f'restore_backup_{backup_id}',
        description='auto-created_from_restore_from_backup', backup_id=backup_id)
    volume, _type = volume_operations.create(conf, db, rpc, enforcer, ctx, request=request)
    return backup, volume


def export_record(conf, db, rpc, ctx, *, backup_id: str) -> dict:
    """{backup_service, backup_url} from the backup's service (a call).

    :raises BackupNotFound, InvalidBackup, ServiceNotFound:
    """
    backup = get(db, ctx, backup_id=backup_id)
    if backup.status != states.Status.AVAILABLE:
        raise exception.InvalidBackup(
            reason=f'Backup status must be available and not {backup.status}.')
    host = backup_rpcapi.choose_host(conf, db, host=backup.host,
                                     availability_zone=backup.availability_zone)
    return rpc.backup.export_record(ctx, backup_id=backup_id, host=host)


def decode_record(backup_url: str) -> dict:
    """The fields of an exported record (Cinder's base64 JSON). :raises InvalidInput:"""
    try:
        record = json.loads(base64.b64decode(backup_url.encode('utf-8')).decode('utf-8'))
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise exception.InvalidInput(reason='Can\'t parse backup record.') from None
    if not isinstance(record, dict):
        raise exception.InvalidInput(reason='Can\'t parse backup record.')
    if 'id' not in record:
        raise exception.InvalidInput(reason='Provided backup record is missing an id')
    if 'size' not in record:
        raise exception.InvalidInput(
            reason='Provided backup record is missing size attribute')
    return record


def import_record(conf, db, rpc, ctx, *, backup_service: str, backup_url: str):
    """Insert the record `creating` and cast it to a live backup service; the row.

    :raises ServiceNotFound (503 at the resource), InvalidInput, InvalidBackup, OverQuota:
    """
    hosts = backup_rpcapi.live_hosts(conf, db)
    if not hosts:
        raise exception.ServiceNotFound(service_id=backup_service)
    record = decode_record(backup_url)
    size = record['size']
    backup = db_backups.create_import(
        db, backup_id=record['id'], reserve=_reserver(conf, db, ctx, size or 0),
        values={'user_id': ctx.user_id, 'project_id': ctx.project_id, 'size': size})
    first = hosts.pop()
    casting.send(lambda: rpc.backup.import_record(
        ctx, backup_id=backup.id, backup_service=backup_service, backup_url=backup_url,
        backup_hosts=hosts, host=first),
        undo=lambda: db_backups.undo_create(db, backup=backup, deltas=_deltas(size or 0)),
        resource='Backup', resource_id=backup.id, what='import_record')
    return backup


def reset_status(conf, db, rpc, ctx, *, backup_id: str, status: str) -> None:
    """Admin reset-state, carried out by a live backup service (as Cinder).

    :raises BackupNotFound, ServiceNotFound:
    """
    backup = get(db, ctx, backup_id=backup_id)
    host = backup_rpcapi.choose_host(conf, db, host=backup.host,
                                     availability_zone=backup.availability_zone)
    rpc.backup.reset_status(ctx, backup_id=backup_id, status=status, host=host)


def update(db, ctx, *, backup_id: str, values: dict, metadata: dict | None):
    """PUT: name, description and metadata (3.43); the row as now stored.

    :raises BackupNotFound:
    """
    get(db, ctx, backup_id=backup_id)
    return db_backups.update(db, backup_id=backup_id, values=values, metadata=metadata)
