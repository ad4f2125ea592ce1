"""Group statuses and the transitions the API and the volume service may make (Cinder's
GroupStatus and the expected sets of cinder/group/api.py)."""

import enum

from cinderlike.states.machine import ANY, Transition


class Status(enum.StrEnum):
    ERROR = 'error'
    AVAILABLE = 'available'
    CREATING = 'creating'
    DELETING = 'deleting'
    DELETED = 'deleted'
    UPDATING = 'updating'
    IN_USE = 'in-use'
    ERROR_DELETING = 'error_deleting'


S = Status

# Cinder's GroupStatus.ALL: what an admin may reset to, in the order its refusal lists them.
ALL = (S.ERROR, S.AVAILABLE, S.CREATING, S.DELETING, S.DELETED, S.UPDATING, S.IN_USE,
       S.ERROR_DELETING)

# Statuses a workers row marks as in flight (Cinder's Group._is_cleanable).
CLEANABLE = frozenset({S.CREATING, S.DELETING, S.UPDATING})

# Filters a non-admin may list groups by (Cinder's resource_filters.json `group`).
FILTERS = ('name',)

# Volume statuses a volume may be added to / removed from a group in (Cinder's).
ADD_VOLUME_FROM = ('available', 'in-use')
REMOVE_VOLUME_FROM = ('available', 'in-use', 'error', 'error_deleting')

TRANSITIONS: dict[str, Transition] = dict(
    # The API inserts the row `creating`; the volume service finishes it.
    create=Transition(frozenset({S.CREATING}), S.CREATING, S.AVAILABLE, S.ERROR),
    # delete-volumes=false: no member volumes; true: from any status, members deleted too.
    delete=Transition(frozenset({S.AVAILABLE, S.ERROR}), S.DELETING, None, S.ERROR_DELETING,
                      guards=('no_group_snapshots', 'no_volumes', 'not_a_source')),
    delete_volumes=Transition(ANY, S.DELETING, None, S.ERROR_DELETING,
                              guards=('no_group_snapshots', 'volumes_deletable',
                                      'not_a_source')),
    # add_volumes/remove_volumes: the volume service changes the members while `updating`.
    update=Transition(frozenset({S.AVAILABLE}), S.UPDATING, S.AVAILABLE, S.ERROR),
    reset_status=Transition(ANY),
)
