"""Backup statuses and the transitions the API and the backup service may make (Cinder's)."""

import enum

from cinderlike.states.machine import ANY, Transition


class Status(enum.StrEnum):
    CREATING = 'creating'
    AVAILABLE = 'available'
    DELETING = 'deleting'
    DELETED = 'deleted'
    ERROR = 'error'
    ERROR_DELETING = 'error_deleting'
    RESTORING = 'restoring'


S = Status

# What an admin's os-reset_status accepts (Cinder's `backup_status` format), in its order.
RESET_STATUSES = (S.AVAILABLE, S.ERROR)

# Statuses a workers row marks as in flight: the backup service's start-up and a cleanup
# settle them (Cinder's _cleanup_incomplete_backup_operations).
CLEANABLE = frozenset({S.CREATING, S.RESTORING, S.DELETING})

# The volume_id of an imported backup (Cinder's IMPORT_VOLUME_ID): it belongs to no volume.
IMPORT_VOLUME_ID = '00000000-0000-0000-0000-000000000000'

TRANSITIONS: dict[str, Transition] = dict(
    # The API inserts the row `creating` (an import too); the backup service finishes it.
    create=Transition(frozenset({S.CREATING}), S.CREATING, S.AVAILABLE, S.ERROR),
    # NOTE(cinder): a failed delete leaves the backup `error` (Cinder's manager), so it can
    # be deleted again; a backup with live incremental children cannot be deleted.
    delete=Transition(frozenset({S.AVAILABLE, S.ERROR}), S.DELETING, None, S.ERROR,
                      guards=('no_dependents',)),
    force_delete=Transition(ANY, S.DELETING, None, S.ERROR, guards=('no_dependents',)),
    # A restore never changes the backup's data: it is available again whatever happens.
    restore=Transition(frozenset({S.AVAILABLE}), S.RESTORING, S.AVAILABLE, S.AVAILABLE),
    reset_status=Transition(ANY),
)
