"""Group snapshot statuses and their transitions (Cinder's GroupSnapshotStatus and the
expected sets of cinder/group/api.py)."""

import enum

from cinderlike.states.machine import ANY, Transition


class Status(enum.StrEnum):
    ERROR = 'error'
    AVAILABLE = 'available'
    CREATING = 'creating'
    DELETING = 'deleting'
    DELETED = 'deleted'
    UPDATING = 'updating'
    ERROR_DELETING = 'error_deleting'


S = Status

# Cinder's GroupSnapshotStatus.ALL: what an admin may reset to (3.19).
ALL = (S.ERROR, S.AVAILABLE, S.CREATING, S.DELETING, S.DELETED, S.UPDATING, S.ERROR_DELETING)

# Filters a non-admin may list group snapshots by (Cinder's resource_filters.json).
FILTERS = ('name', 'status', 'group_id')

TRANSITIONS: dict[str, Transition] = dict(
    # The API inserts the row (and one snapshot per member) `creating`.
    create=Transition(frozenset({S.CREATING}), S.CREATING, S.AVAILABLE, S.ERROR),
    delete=Transition(frozenset({S.AVAILABLE, S.ERROR}), S.DELETING, None, S.ERROR_DELETING,
                      guards=('not_a_source',)),
    reset_status=Transition(ANY),
)
