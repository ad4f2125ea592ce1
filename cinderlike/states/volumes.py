"""Volume statuses and the transitions the API and the volume service may make (Cinder's rules)."""

import enum

from cinderlike.states.machine import ANY, PREVIOUS, Transition


class Status(enum.StrEnum):
    CREATING = 'creating'
    AVAILABLE = 'available'
    IN_USE = 'in-use'
    RESERVED = 'reserved'
    ATTACHING = 'attaching'
    DETACHING = 'detaching'
    DELETING = 'deleting'
    ERROR = 'error'
    ERROR_DELETING = 'error_deleting'
    ERROR_MANAGING = 'error_managing'
    MANAGING = 'managing'
    MAINTENANCE = 'maintenance'
    RESTORING_BACKUP = 'restoring-backup'
    ERROR_RESTORING = 'error_restoring'
    AWAITING_TRANSFER = 'awaiting-transfer'
    BACKING_UP = 'backing-up'
    EXTENDING = 'extending'
    ERROR_EXTENDING = 'error_extending'
    DOWNLOADING = 'downloading'
    UPLOADING = 'uploading'
    RETYPING = 'retyping'
    REVERTING = 'reverting'


class AttachStatus(enum.StrEnum):
    ATTACHED = 'attached'
    ATTACHING = 'attaching'
    DETACHED = 'detached'
    RESERVED = 'reserved'
    ERROR_ATTACHING = 'error_attaching'
    ERROR_DETACHING = 'error_detaching'


S = Status

# Statuses a workers row marks as in flight (cleanable after a crash), inventory §2.7.
CLEANABLE = frozenset({S.CREATING, S.DELETING, S.UPLOADING, S.DOWNLOADING, S.EXTENDING})

# migration_status values that let a volume be deleted.
DELETABLE_MIGRATION = (None, 'deleting', 'error', 'success')

TRANSITIONS: dict[str, Transition] = dict(
    # The API inserts the row in `creating`; the volume service finishes it.
    create=Transition(frozenset({S.CREATING}), S.CREATING, S.AVAILABLE, S.ERROR),
    # A transfer offer (Cinder's transfer_create/accept/destroy): the volume waits in
    # `awaiting-transfer`; accepting finishes it `available` under its new owner, deleting
    # the offer undoes it back to `available`.
    transfer=Transition(frozenset({S.AVAILABLE}), S.AWAITING_TRANSFER, S.AVAILABLE,
                        S.AVAILABLE),
    delete=Transition(
        frozenset({S.AVAILABLE, S.ERROR, S.ERROR_RESTORING, S.ERROR_EXTENDING,
                   S.ERROR_MANAGING}),
        S.DELETING, None, S.ERROR_DELETING,
        guards=('not_attached', 'migration_deletable', 'no_snapshots', 'not_in_group')),
    force_delete=Transition(
        ANY, S.DELETING, None, S.ERROR_DELETING,
        guards=('not_attached', 'migration_deletable', 'no_snapshots', 'not_in_group')),
    extend=Transition(frozenset({S.AVAILABLE}), S.EXTENDING, PREVIOUS, S.ERROR_EXTENDING,
                      guards=('not_migrating',), saves_previous=True),
    # From 3.42 an attached volume may be extended too; it returns to in-use.
    extend_attached=Transition(frozenset({S.AVAILABLE, S.IN_USE}), S.EXTENDING, PREVIOUS,
                               S.ERROR_EXTENDING, guards=('not_migrating',),
                               saves_previous=True),
    reset_status=Transition(ANY),
)
