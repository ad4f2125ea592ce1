"""cinderlike-backup: settle what this host left in flight when it stopped (Cinder's
_cleanup_incomplete_backup_operations), at start-up, and on POST /workers/cleanup the
workers rows of this service or of a down backup service.

Each backup of this host left `creating`, `restoring` or `deleting` is first held (its
workers row taken, bumping the epoch, so a late write of the run that died is refused):
a create ends `error` with its volume (or snapshot) back and its temporary volume or
snapshot removed, a restore leaves the backup available and the volume `error_restoring`,
a delete runs again. sweep_lost settles the same way the backups no service ever took up
(their cast, or the scheduler's, was lost).
"""

import datetime

from oslo_log import log as logging

from cinderlike import messages
from cinderlike.backup import create, delete
from cinderlike.db import backups as db_backups
from cinderlike.db import settle as db_settle
from cinderlike.db import volumes as db_volumes
from cinderlike.db import workers as db_workers
from cinderlike.db.models import utcnow
from cinderlike.states import backups as states

LOG = logging.getLogger(__name__)

S = states.Status
DONE = db_settle.Settled.DONE

INTERRUPTED = 'The backup service stopped while the operation ran.'
# Backups one sweep looks at; the next sweep takes the rest.
SWEEP_BATCH = 100


def _failed(manager, ctx, backup, action) -> None:
    """The user message of a backup operation a cleanup ended in failure."""
    messages.create(manager.db, ctx, conf=manager.conf, action=action,
                    resource_type=messages.Resource.VOLUME_BACKUP, resource_uuid=backup.id,
                    detail=messages.Detail.UNKNOWN_ERROR, project_id=backup.project_id)


def _creating(manager, ctx, backup, hold) -> None:
    volume = db_volumes.get_any(manager.db, volume_id=backup.volume_id)
    if volume is not None:
        create.remove_temporary(manager, ctx, backup, volume)
    if create.settle(manager, backup, hold, db_settle.Outcome(
            action='create', error=True, values={'fail_reason': INTERRUPTED})) is DONE:
        _failed(manager, ctx, backup, messages.Action.BACKUP_CREATE)


def _restoring(manager, ctx, backup, hold) -> None:
    with manager.db.writer() as s:
        settled = db_settle.settle(manager.db, db_backups.MACHINE, row=backup, hold=hold,
                                   outcome=db_settle.Outcome(action='restore'), session=s)
        if settled is DONE and backup.restore_volume_id:
            db_volumes.MACHINE.finish(manager.db, row_id=backup.restore_volume_id,
                                      action='restore_backup', error=True, session=s)
    if settled is DONE and backup.restore_volume_id:
        _failed(manager, ctx, backup, messages.Action.BACKUP_RESTORE)


def _deleting(manager, ctx, backup, hold) -> None:
    if backup.host not in (None, manager.host):
        # NOTE(posix): another host's objects may be out of our reach: the backup goes
        # to `error`, so its owner (or an operator) deletes it again.
        if db_settle.settle(manager.db, db_backups.MACHINE, row=backup, hold=hold,
                            outcome=db_settle.Outcome(action='delete', error=True,
                                                      values={'fail_reason': INTERRUPTED})
                            ) is DONE:
            _failed(manager, ctx, backup, messages.Action.BACKUP_DELETE)
        return
    # NOTE(resume): delete_backup takes the row again (a new epoch) and settles it.
    delete.delete_backup(manager, ctx, backup_id=backup.id)


_SETTLERS = {S.CREATING: _creating, S.RESTORING: _restoring, S.DELETING: _deleting}


def cleanup(manager, ctx) -> int:
    """Settle every backup of this host left in a cleanable status; how many."""
    settled = 0
    for row in db_backups.of_host(manager.db, host=manager.host, statuses=states.CLEANABLE):
        backup, hold = manager.hold(db_backups.MACHINE, row_id=row.id, status=row.status)
        if hold is None:
            continue
        LOG.warning('Backup %s was %s when backup service %s stopped; settling it',
                    backup.id, backup.status, manager.host)
        try:
            _SETTLERS[backup.status](manager, ctx, backup, hold)
        except Exception:
            LOG.exception('Backup %s: start-up cleanup failed', backup.id)
            continue
        settled += 1
    return settled


def do_cleanup(manager, ctx, request: dict) -> int:
    """POST /workers/cleanup: take over and settle the selected workers rows of backups
    (of *request*'s service_ids, taken before its `until`); how many were settled."""
    if request.get('resource_type') not in (None, db_backups.MACHINE.name):
        return 0
    until = request.get('until')
    rows = db_workers.get_all(manager.db, service_ids=request.get('service_ids'),
                              resource_type=db_backups.MACHINE.name,
                              resource_id=request.get('resource_id'),
                              until=datetime.datetime.fromisoformat(until) if until else None)
    settled = 0
    for row in rows:
        hold = db_workers.take_over(manager.db, worker=row, service_id=manager.service_id)
        if hold is None:
            continue
        backup = db_backups.get_any(manager.db, backup_id=row.resource_id)
        if backup is None or backup.deleted or backup.status != row.status:
            db_workers.finish(manager.db, hold=hold)
            continue
        LOG.warning('Backup %s: %s interrupted on service %s; settling it', backup.id,
                    backup.status, row.service_id)
        _SETTLERS[backup.status](manager, ctx, backup, hold)
        settled += 1
    return settled


def sweep_lost(manager, ctx) -> int:
    """Settle the backups left `creating`, `restoring` or `deleting` longer than
    `lost_operation_timeout` that no service holds: their cast (or the scheduler's) was lost,
    or the service it went to died before taking it. Any backup service settles a create or
    a restore; a delete is resumed by its own host, which has its objects. How many.

    NOTE(race): the backup is taken only while no workers row exists, in the transaction
    that checks it, so a service that took it up meanwhile keeps it.
    """
    cutoff = utcnow() - datetime.timedelta(seconds=manager.conf.lost_operation_timeout)
    settled = 0
    for row in db_backups.unheld(manager.db, statuses=states.CLEANABLE, before=cutoff,
                                 limit=SWEEP_BATCH):
        if row.status == S.DELETING and row.host not in (None, manager.host):
            continue
        backup, hold = db_workers.begin_for(manager.db, db_backups.MACHINE, row_id=row.id,
                                            status=row.status, service_id=manager.service_id,
                                            unheld=True)
        if hold is None:
            continue
        LOG.warning('Backup %s: %s and taken up by no service within %s s; settling it',
                    backup.id, backup.status, manager.conf.lost_operation_timeout)
        try:
            _SETTLERS[backup.status](manager, ctx, backup, hold)
        except Exception:
            LOG.exception('Backup %s: settling the lost operation failed', backup.id)
            db_workers.finish(manager.db, hold=hold)
            continue
        settled += 1
    return settled
