"""A volume's migration_status column and its transitions (Cinder's migration statuses).

A migration runs on the source row: `starting` (API, scheduler), `migrating` (the source's
volume service copies), `completing` (identities swapped), then `success` or `error`. The
destination row is `target:<source id>` until it becomes the source's identity or is deleted.
"""

from cinderlike.states.machine import ANY, Transition
from cinderlike.states.volumes import MigrationStatus

M = MigrationStatus


def target_of(source_id: str) -> str:
    """The migration_status of the destination row of *source_id*'s migration."""
    return f'{M.TARGET_PREFIX}{source_id}'


def source_of(migration_status: str | None) -> str | None:
    """The source volume id a destination row's migration_status names; None otherwise."""
    if migration_status and migration_status.startswith(M.TARGET_PREFIX):
        return migration_status[len(M.TARGET_PREFIX):]
    return None


TRANSITIONS: dict[str, Transition] = dict(
    # os-migrate_volume and a retype that migrates: no migration may be running (the
    # guard also admits a never-migrated NULL); the caller adds the volume status it
    # starts from (available or in-use; a retype's `retyping`).
    migrate=Transition(ANY, M.STARTING, M.SUCCESS, M.ERROR,
                       guards=('no_migration_running', 'no_snapshots', 'not_replicated',
                               'not_in_group')),
    # The source's volume service took the migration: it copies (or its driver moves it).
    run=Transition(frozenset({M.STARTING}), M.MIGRATING, M.SUCCESS, M.ERROR),
    # The data is on the destination: the identities are swapped under `completing`.
    complete=Transition(frozenset({M.MIGRATING}), M.COMPLETING, M.SUCCESS, M.ERROR),
)
