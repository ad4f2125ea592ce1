"""cinderlike-backup: write a backup into a volume (Cinder's restore_backup).

The volume is `restoring-backup` and the backup `restoring` (the API moved both); the driver
writes the backup's chain through this host's connection to the volume. Success makes the
volume `available` (with `src_backup_id`); failure `error_restoring`, or `error` for a volume
made for the restore; the backup is available again either way. An admin's reset of the
backup's status cancels the restore (Cinder's): the volume ends `error`, the backup keeps
the status it was given.
"""

from oslo_log import log as logging

from cinderlike import exception, messages
from cinderlike.backup import cancel, device, refs
from cinderlike.db import backups as db_backups
from cinderlike.db import settle as db_settle
from cinderlike.db import volumes as db_volumes
from cinderlike.db import workers as db_workers
from cinderlike.db.models import utcnow
from cinderlike.states import backups as states
from cinderlike.states import volumes as volume_states

LOG = logging.getLogger(__name__)

S = states.Status
V = volume_states.Status


def volume_outcome(*, error: bool, volume_is_new: bool, cancelled: bool = False) -> dict:
    """kwargs of the volume's restore_backup finish: error_restoring, or error for a new
    volume or a cancelled restore (Cinder's), available with launched_at for a new one that
    succeeded."""
    if error:
        return {'error': True, 'status': V.ERROR if volume_is_new or cancelled else None}
    return {'values': {'launched_at': utcnow()} if volume_is_new else None}


def _run(manager, ctx, backup, volume, volume_is_new: bool) -> None:
    """:raises InvalidBackup: written by another driver; what the driver raised."""
    manager.require_driver()
    if backup.service and backup.service != manager.driver_name:
        raise exception.InvalidBackup(
            reason='Restore backup aborted, the backup service currently configured '
                   f'[{manager.driver_name}] is not the backup service that was used to '
                   f'create this backup [{backup.service}].')
    with device.opened(manager, ctx, volume=volume, writable=True,
                       device={'is_snapshot': False, 'id': volume.id}) as volume_file:
        check = cancel.watcher(manager.db, backup_id=backup.id, status=S.RESTORING)
        manager.driver.for_context(ctx).restore(
            refs.ref_of(manager.db, backup), volume.id, volume_file,
            volume_is_new=volume_is_new, progress=lambda done, total: check())


def restore_backup(manager, ctx, *, backup_id: str, volume_id: str,
                   volume_is_new: bool) -> bool:
    """Restore the backup into the volume; True when the volume became available."""
    backup, hold = manager.hold(db_backups.MACHINE, row_id=backup_id, status=S.RESTORING)
    if hold is None:
        return False
    manager.notifier.info(ctx, backup, 'restore.start')
    volume = db_volumes.get_any(manager.db, volume_id=volume_id)
    failure = None
    if volume is None or volume.status != V.RESTORING_BACKUP:
        failure = exception.InvalidVolume(
            reason='Restore backup aborted, expected volume status restoring-backup but got '
                   f'{volume.status if volume else "deleted"}.')
    else:
        try:
            _run(manager, ctx, backup, volume, volume_is_new)
        except cancel.Cancelled as error:
            failure = error
        except Exception as error:
            LOG.exception('Backup %s: restore into volume %s failed', backup_id, volume_id)
            failure = error
    cancelled = isinstance(failure, cancel.Cancelled)

    def write():
        with manager.db.writer() as s:
            settled = db_settle.settle(manager.db, db_backups.MACHINE, row=backup, hold=hold,
                                       outcome=db_settle.Outcome(action='restore'), session=s)
            if settled is db_settle.Settled.MOVED_ON:
                # NOTE(reset): the backup was given another status; our operation is over.
                db_workers.finish(manager.db, hold=hold, session=s)
            if settled is not db_settle.Settled.FENCED and volume is not None:
                db_volumes.MACHINE.finish(
                    manager.db, row_id=volume_id, action='restore_backup', session=s,
                    **volume_outcome(error=failure is not None, volume_is_new=volume_is_new,
                                     cancelled=cancelled))
        return settled
    settled = manager.db.retrying(write, what=f'Settling the restore of backup {backup_id}')
    if cancelled:
        LOG.info('Backup %s: restore into volume %s cancelled (%s)', backup_id, volume_id,
                 failure)
        return False
    if failure is not None:
        if settled is not db_settle.Settled.FENCED:
            detail = (messages.Detail.VOLUME_INVALID_STATE
                      if isinstance(failure, exception.InvalidVolume)
                      else messages.Detail.BACKUP_RESTORE_ERROR)
            refs.message(manager, ctx, backup_id, messages.Action.BACKUP_RESTORE, detail,
                         failure)
        return False
    if backup.volume_id != volume_id:
        db_volumes.update_metadata(manager.db, volume_id=volume_id,
                                   metadata={'src_backup_id': backup_id})
    manager.notifier.info(ctx, db_backups.get(manager.db, backup_id=backup_id), 'restore.end')
    LOG.info('Backup %s restored into volume %s', backup_id, volume_id)
    return True
