"""cinderlike-backup: back a volume (or a snapshot of it) up (Cinder's create_backup).

The volume service names the device, a temporary clone or snapshot for an in-use volume;
the driver reads it through this host's connection; the temporary copy is removed in every
outcome;
the backup and its source are settled in one fenced transaction (db/settle.py).
"""

import time

from oslo_log import log as logging

from cinderlike import messages
from cinderlike.backup import cancel, device, refs
from cinderlike.db import backups as db_backups
from cinderlike.db import settle as db_settle
from cinderlike.db import volumes as db_volumes
from cinderlike.states import backups as states

LOG = logging.getLogger(__name__)

S = states.Status
D = messages.Detail


class _Step(Exception):
    """A failure of one step, carrying the user message detail of that step."""

    def __init__(self, detail, error: Exception):
        super().__init__(str(error))
        self.detail, self.error = detail, error


def progress_reporter(manager, ctx, backup, *, clock=time.monotonic):
    """progress(done, total) for the driver: `backup.createprogress` at most every
    `backup_timer_interval` seconds (Cinder's progress timer), and cancel.Cancelled once
    the backup left `creating` (a force delete)."""
    check = cancel.watcher(manager.db, backup_id=backup.id, status=S.CREATING, clock=clock)
    last = {'notified': clock()}

    def report(done, total):
        now = clock()
        check(now)
        if not manager.driver.enable_progress_timer:
            return
        if now - last['notified'] < manager.conf.backup_timer_interval:
            return
        last['notified'] = now
        manager.notifier.info(ctx, backup, 'createprogress', backup_size=total,
                              progress=round(100.0 * done / total, 1) if total else 100.0)
    return report


def _run(manager, ctx, backup, volume) -> dict:
    """Device, connection, driver: the backup's row updates. :raises _Step:"""
    try:
        manager.require_driver()
        found = manager.volume_api.get_backup_device(
            ctx, backup_id=backup.id, host=volume.host, cluster_name=volume.cluster_name)
    except Exception as error:
        raise _Step(D.BACKUP_CREATE_DEVICE_ERROR, error) from error
    try:
        with device.opened(manager, ctx, volume=volume, device=found,
                           writable=False) as volume_file:
            return manager.driver.for_context(ctx).backup(
                refs.ref_of(manager.db, backup), volume_file,
                progress=progress_reporter(manager, ctx, backup))
    except Exception as error:
        raise _Step(D.BACKUP_CREATE_DRIVER_ERROR, error) from error


def remove_temporary(manager, ctx, backup, volume) -> None:
    """The temporary volume or snapshot goes in every outcome; a failure is a user
    message."""
    try:
        manager.volume_api.remove_backup_device(ctx, backup_id=backup.id, host=volume.host,
                                                cluster_name=volume.cluster_name)
    except Exception as error:
        LOG.exception('Backup %s: temporary volume or snapshot not removed', backup.id)
        refs.message(manager, ctx, backup.id, messages.Action.BACKUP_CREATE,
                     D.BACKUP_CREATE_CLEANUP_ERROR, error)


def settle(manager, backup, hold, outcome) -> db_settle.Settled:
    """The backup's outcome and its source back where it was, in one transaction.

    The source is released too when the backup moved on (reset, force delete), also when
    a force delete took its workers row over (fenced, no longer `creating`); only a
    take-over of a backup still `creating` leaves the source to the new owner.
    """
    def write():
        with manager.db.writer() as s:
            settled = db_settle.settle(manager.db, db_backups.MACHINE, row=backup, hold=hold,
                                       outcome=outcome, session=s)
            if settled is not db_settle.Settled.FENCED or db_backups.status_of(
                    manager.db, backup_id=backup.id, session=s) != S.CREATING:
                db_backups.release_source(manager.db, backup=backup, session=s)
        return settled
    return manager.db.retrying(write, what=f'Settling the create of backup {backup.id}')


def create_backup(manager, ctx, *, backup_id: str) -> bool:
    """Back the backup's source up; True when the backup became available."""
    backup, hold = manager.hold(db_backups.MACHINE, row_id=backup_id, status=S.CREATING)
    if hold is None:
        return False
    # NOTE(cinder): the backup names the driver of the host that makes it, and its zone
    # unless the request named one.
    db_backups.set_values(manager.db, backup_id=backup_id, expected=S.CREATING,
                          values={'service': manager.driver_name,
                                  'availability_zone': backup.availability_zone
                                  or manager.availability_zone})
    manager.notifier.info(ctx, backup, 'create.start')
    volume = db_volumes.get_any(manager.db, volume_id=backup.volume_id)
    failure = None
    try:
        updates = _run(manager, ctx, backup, volume)
    except _Step as step:
        LOG.error('Backup %s failed: %s', backup_id, step)
        failure = step
    finally:
        remove_temporary(manager, ctx, backup, volume)
    if failure is None:
        outcome = db_settle.Outcome(action='create', values=dict(updates, fail_reason=None))
    else:
        outcome = db_settle.Outcome(action='create', error=True,
                                    values={'fail_reason': str(failure)[:255]})
    settled = settle(manager, backup, hold, outcome)
    if failure is not None and isinstance(failure.error, cancel.Cancelled):
        LOG.info('Backup %s cancelled: it left creating while it ran', backup_id)
        return False
    if failure is not None and settled is not db_settle.Settled.FENCED:
        refs.message(manager, ctx, backup_id, messages.Action.BACKUP_CREATE, failure.detail,
                     failure.error)
    if failure is not None or settled is not db_settle.Settled.DONE:
        return False
    manager.notifier.info(ctx, db_backups.get(manager.db, backup_id=backup_id), 'create.end')
    LOG.info('Backup %s of volume %s created', backup_id, backup.volume_id)
    return True
