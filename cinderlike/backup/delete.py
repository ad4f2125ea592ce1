"""cinderlike-backup: remove a backup's objects and its row (Cinder's delete_backup).

Success destroys the row and gives its quota back, and its parent counts one dependent
less; a driver failure leaves the backup `error` with a user message, so it can be deleted
again.
"""

from oslo_log import log as logging

from cinderlike import messages
from cinderlike.backup import refs
from cinderlike.db import backups as db_backups
from cinderlike.db import settle as db_settle
from cinderlike.states import backups as states

LOG = logging.getLogger(__name__)


def gone(backup) -> db_settle.Outcome:
    """The delete's outcome: row destroyed, its backups/backup_gigabytes given back."""
    return db_settle.Outcome(action='delete', destroy=True, release_usage={
        'backups': -1, 'backup_gigabytes': -(backup.size or 0)})


def delete_backup(manager, ctx, *, backup_id: str) -> bool:
    """Delete a `deleting` backup; True when it is gone."""
    backup, hold = manager.hold(db_backups.MACHINE, row_id=backup_id,
                                status=states.Status.DELETING)
    if hold is None:
        return False
    manager.notifier.info(ctx, backup, 'delete.start')
    failure = None
    try:
        manager.require_driver()
        manager.driver.for_context(ctx).delete_backup(refs.ref_of(manager.db, backup))
    except Exception as error:
        LOG.exception('Backup %s: driver failed to delete it', backup_id)
        failure = error
    outcome = (gone(backup) if failure is None else db_settle.Outcome(
        action='delete', error=True, values={'fail_reason': str(failure)[:255]}))
    def write():
        with manager.db.writer() as s:
            settled = db_settle.settle(manager.db, db_backups.MACHINE, row=backup, hold=hold,
                                       outcome=outcome, session=s)
            if settled is db_settle.Settled.DONE and failure is None and backup.parent_id:
                db_backups.recount_dependents(manager.db, backup_id=backup.parent_id,
                                              session=s)
        return settled
    settled = manager.db.retrying(write, what=f'Settling the delete of backup {backup_id}')
    if failure is not None:
        if settled is not db_settle.Settled.FENCED:
            refs.message(manager, ctx, backup_id, messages.Action.BACKUP_DELETE,
                         messages.Detail.BACKUP_DELETE_DRIVER_ERROR, failure)
        return False
    if settled is not db_settle.Settled.DONE:
        return False
    manager.notifier.info(ctx, backup, 'delete.end')
    LOG.info('Backup %s deleted', backup_id)
    return True
