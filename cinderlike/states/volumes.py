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
    # Beyond Cinder's enum, as Cinder writes them.
    UNMANAGING = 'unmanaging'
    ERROR_UNMANAGING = 'error_unmanaging'
    ERROR_MANAGING_DELETING = 'error_managing_deleting'


class AttachStatus(enum.StrEnum):
    ATTACHED = 'attached'
    ATTACHING = 'attaching'
    DETACHED = 'detached'
    RESERVED = 'reserved'
    ERROR_ATTACHING = 'error_attaching'
    ERROR_DETACHING = 'error_detaching'


class MigrationStatus(enum.StrEnum):
    STARTING = 'starting'
    MIGRATING = 'migrating'
    COMPLETING = 'completing'
    SUCCESS = 'success'
    ERROR = 'error'
    DELETING = 'deleting'
    # The destination row of a migration: 'target:<source volume id>'.
    TARGET_PREFIX = 'target:'


S = Status
M = MigrationStatus
A = AttachStatus

# What a volume's delete starts from, in the order Cinder names them in its 400.
DELETABLE = (S.AVAILABLE, S.ERROR, S.ERROR_RESTORING, S.ERROR_EXTENDING, S.ERROR_MANAGING)

# The values an admin's os-reset_status accepts (Cinder's admin_actions); 'none' clears
# migration_status.
RESET_STATUSES = frozenset({S.CREATING, S.AVAILABLE, S.DELETING, S.ERROR, S.ERROR_DELETING,
                            S.ERROR_MANAGING, S.MANAGING, S.ATTACHING, S.IN_USE, S.DETACHING,
                            S.MAINTENANCE})
RESET_ATTACH_STATUSES = frozenset({A.ATTACHED, A.DETACHED})
RESET_MIGRATION_STATUSES = frozenset({M.MIGRATING, M.ERROR, M.SUCCESS, M.COMPLETING, M.STARTING,
                                      'none'})

# Statuses a workers row marks as in flight (cleanable after a crash), inventory §2.7.
CLEANABLE = frozenset({S.CREATING, S.DELETING, S.UPLOADING, S.DOWNLOADING, S.EXTENDING})

# migration_status values of a volume no migration is running on (Cinder's
# AVAILABLE_MIGRATION_STATUS): such a volume may be deleted or snapshotted.
NOT_MIGRATING = (None, M.DELETING, M.ERROR, M.SUCCESS)
# What os-retype and os-migrate_volume start from.
RETYPABLE = (S.AVAILABLE, S.IN_USE)
MIGRATABLE = (S.AVAILABLE, S.IN_USE)

# migration_status values that let a volume be extended.
EXTENDABLE_MIGRATION = (None, M.ERROR, M.SUCCESS)

# Snapshot statuses a cascade delete may take down with the volume (Cinder's
# volume_has_undeletable_snapshots_filter).
CASCADE_SNAPSHOT_STATUSES = ('available', 'error')


# What a new attachment may reserve (Cinder's _attachment_reserve), in Cinder's order; a
# multiattach volume may be in use already.
RESERVABLE = (S.AVAILABLE, S.DOWNLOADING)
RESERVABLE_MULTIATTACH = (S.AVAILABLE, S.IN_USE, S.DOWNLOADING)
# What the legacy os-reserve (and os-attach) starts from.
LEGACY_RESERVABLE = (S.AVAILABLE,)
LEGACY_RESERVABLE_MULTIATTACH = (S.AVAILABLE, S.IN_USE)
# A second attachment of a volume that is not multiattach is still allowed for the
# instance it is attached to (a migrating instance, Cinder's LP 1694530).
SAME_INSTANCE_RESERVABLE = frozenset({S.IN_USE, S.RESERVED})


def migrating(migration_status: str | None) -> bool:
    """Whether a migration is running on a volume with this migration_status."""
    return migration_status not in NOT_MIGRATING

TRANSITIONS: dict[str, Transition] = dict(
    # The API inserts the row in `creating`; the volume service finishes it.
    create=Transition(frozenset({S.CREATING}), S.CREATING, S.AVAILABLE, S.ERROR),
    # A transfer offer (Cinder's transfer_create/accept/destroy): the volume waits in
    # `awaiting-transfer`; accepting finishes it `available` under its new owner, deleting
    # the offer undoes it back to `available`.
    transfer=Transition(frozenset({S.AVAILABLE}), S.AWAITING_TRANSFER, S.AVAILABLE,
                        S.AVAILABLE),
    # NOTE(undo): a delete saves the status it left, so an API whose cast could not be
    # sent puts the volume back where it was.
    delete=Transition(
        frozenset(DELETABLE), S.DELETING, None, S.ERROR_DELETING,
        guards=('not_attached', 'migration_deletable', 'no_snapshots', 'not_in_group'),
        saves_previous=True),
    force_delete=Transition(
        ANY, S.DELETING, None, S.ERROR_DELETING,
        guards=('not_attached', 'migration_deletable', 'no_snapshots', 'not_in_group'),
        saves_previous=True),
    # DELETE ?cascade=true: the snapshots go first (all must be deletable unless forced).
    delete_cascade=Transition(
        frozenset(DELETABLE), S.DELETING, None, S.ERROR_DELETING,
        guards=('not_attached', 'migration_deletable', 'snapshots_deletable',
                'not_in_group'),
        saves_previous=True),
    force_delete_cascade=Transition(
        ANY, S.DELETING, None, S.ERROR_DELETING,
        guards=('not_attached', 'migration_deletable', 'no_group_snapshots',
                'not_in_group'),
        saves_previous=True),
    # Manage (Cinder's manage_existing): the API inserts the row `managing`; the volume
    # service finishes it available (quota and capacity claim taken then) or error_managing.
    manage=Transition(frozenset({S.MANAGING}), S.MANAGING, S.AVAILABLE, S.ERROR_MANAGING),
    # os-unmanage: a delete whose backend keeps the data (the row goes, the file stays);
    # it saves its status for the same undo as delete's.
    unmanage=Transition(
        frozenset(DELETABLE), S.UNMANAGING, None, S.ERROR_UNMANAGING,
        guards=('not_attached', 'migration_deletable', 'no_snapshots', 'not_in_group'),
        saves_previous=True),
    extend=Transition(frozenset({S.AVAILABLE}), S.EXTENDING, PREVIOUS, S.ERROR_EXTENDING,
                      guards=('not_migrating',), saves_previous=True),
    # From 3.42 an attached volume may be extended too; it returns to in-use.
    extend_attached=Transition(frozenset({S.AVAILABLE, S.IN_USE}), S.EXTENDING, PREVIOUS,
                               S.ERROR_EXTENDING, guards=('not_migrating',),
                               saves_previous=True),
    # Backups: the volume is `backing-up` while the backup service reads it (an in-use one
    # only with `force`) and returns to where it was; a restore writes into an available
    # volume, which ends `error_restoring` on failure (`error` when made for the restore).
    backup=Transition(frozenset({S.AVAILABLE}), S.BACKING_UP, PREVIOUS, PREVIOUS,
                      saves_previous=True),
    backup_in_use=Transition(frozenset({S.AVAILABLE, S.IN_USE}), S.BACKING_UP, PREVIOUS,
                             PREVIOUS, saves_previous=True),
    restore_backup=Transition(frozenset({S.AVAILABLE}), S.RESTORING_BACKUP, S.AVAILABLE,
                              S.ERROR_RESTORING),
    # Revert to the latest snapshot (3.40).
    revert=Transition(frozenset({S.AVAILABLE}), S.REVERTING, S.AVAILABLE, S.ERROR),
    reset_status=Transition(ANY),
    # os-retype (Cinder's retype): the volume is `retyping` while the scheduler and its
    # backend (or a migration) change the type, and returns to where it was either way.
    retype=Transition(frozenset(RETYPABLE), S.RETYPING, PREVIOUS, PREVIOUS,
                      guards=('no_migration_running', 'not_in_group'), saves_previous=True),
    # Attachments (3.27): a new attachment reserves the volume; its later statuses follow
    # from its attachments (states/attachments.py volume_status).
    reserve_attachment=Transition(frozenset(RESERVABLE), S.RESERVED),
    reserve_attachment_multiattach=Transition(frozenset(RESERVABLE_MULTIATTACH), S.RESERVED,
                                              guards=('multiattach',)),
    # The legacy os-reserve / os-unreserve / os-begin_detaching / os-roll_detaching and
    # os-attach (Cinder's reserve_volume ... attach_volume).
    reserve=Transition(frozenset(LEGACY_RESERVABLE), S.ATTACHING),
    reserve_multiattach=Transition(frozenset(LEGACY_RESERVABLE_MULTIATTACH), S.ATTACHING,
                                   guards=('multiattach',)),
    unreserve=Transition(frozenset({S.ATTACHING})),
    begin_detaching=Transition(frozenset({S.IN_USE}), S.DETACHING,
                               guards=('attached', 'no_migration_running')),
    roll_detaching=Transition(frozenset({S.DETACHING}), S.IN_USE),
    attach=Transition(frozenset({S.AVAILABLE, S.ATTACHING, S.RESERVED})),
    attach_multiattach=Transition(frozenset({S.AVAILABLE, S.ATTACHING, S.RESERVED, S.IN_USE}),
                                  guards=('multiattach',)),
)
