"""cinderlike-backup: a running backup or restore stops once its backup left the status it
runs in (Cinder's chunk loops re-read the backup): a force delete cancels a backup being
created, an admin's reset of the backup's status a restore."""

import time

from cinderlike.db import backups as db_backups

# Seconds between two reads of a running operation's backup status.
CANCEL_CHECK_INTERVAL = 1.0


class Cancelled(Exception):
    """The backup left the operation's status while it ran: the driver stops."""


def watcher(db, *, backup_id: str, status: str, clock=time.monotonic):
    """check(now=None): raises Cancelled once the backup is no longer *status*; the first
    call reads it, later ones at most every CANCEL_CHECK_INTERVAL (*now* from *clock*)."""
    last = [None]

    def check(now: float | None = None) -> None:
        now = clock() if now is None else now
        if last[0] is not None and now - last[0] < CANCEL_CHECK_INTERVAL:
            return
        last[0] = now
        found = db_backups.status_of(db, backup_id=backup_id)
        if found != status:
            raise Cancelled(f'backup {backup_id} left {status} (now {found})')
    return check
