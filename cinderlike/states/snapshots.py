"""Snapshot statuses and the transitions the API and the volume service may make (Cinder's)."""

import enum

from cinderlike.states.machine import ANY, Transition


class Status(enum.StrEnum):
    CREATING = 'creating'
    AVAILABLE = 'available'
    DELETING = 'deleting'
    DELETED = 'deleted'
    ERROR = 'error'
    ERROR_DELETING = 'error_deleting'
    UPDATING = 'updating'
    UNMANAGING = 'unmanaging'
    BACKING_UP = 'backing-up'
    RESTORING = 'restoring'


S = Status

# Every status in Cinder's order (SnapshotStatus.ALL): what an admin may reset to, and the
# order its refusal lists them in.
ALL = (S.ERROR, S.AVAILABLE, S.CREATING, S.DELETING, S.DELETED, S.UPDATING, S.ERROR_DELETING,
       S.UNMANAGING, S.BACKING_UP, S.RESTORING)

# Statuses a workers row marks as in flight (Cinder's Snapshot._is_cleanable).
CLEANABLE = frozenset({S.CREATING, S.DELETING})

# os-update_snapshot_status (Nova's assisted snapshots): from → the statuses it may report.
REPORTABLE = {S.CREATING: frozenset({S.CREATING, S.AVAILABLE, S.ERROR}),
              S.DELETING: frozenset({S.DELETING, S.ERROR_DELETING})}

# Statuses a volume's cascade delete takes to `deleting` (Cinder's expected set).
CASCADE_FROM = (S.AVAILABLE, S.ERROR, S.DELETING)

# The only status in which a volume transfer takes a snapshot along (Cinder's rule: create
# refuses a volume with another, accept moves only these).
TRANSFERABLE = S.AVAILABLE

# progress of a snapshot the backend finished.
DONE_PROGRESS = '100%'

TRANSITIONS: dict[str, Transition] = dict(
    # The API inserts the row `creating`; the volume service finishes it.
    create=Transition(frozenset({S.CREATING}), S.CREATING, S.AVAILABLE, S.ERROR),
    delete=Transition(frozenset({S.AVAILABLE, S.ERROR}), S.DELETING, None, S.ERROR_DELETING,
                      guards=('not_in_group_snapshot',)),
    # os-unmanage: a delete whose backend keeps the data.
    unmanage=Transition(frozenset({S.AVAILABLE, S.ERROR}), S.UNMANAGING, None,
                        S.ERROR_DELETING, guards=('not_in_group_snapshot',)),
    force_delete=Transition(ANY, S.DELETING, None, S.ERROR_DELETING,
                            guards=('not_in_group_snapshot',)),
    # Revert to snapshot (3.40): the volume reverts from it while it is `restoring`.
    revert=Transition(frozenset({S.AVAILABLE}), S.RESTORING, S.AVAILABLE, S.AVAILABLE),
    # A backup of the snapshot reads it while it is `backing-up`.
    backup=Transition(frozenset({S.AVAILABLE}), S.BACKING_UP, S.AVAILABLE, S.AVAILABLE),
    reset_status=Transition(ANY),
)
