"""group_snapshots rows and their member snapshots: create (under the group's row lock,
quota in the same transaction), lookups, listings and the status transitions.

A group snapshot is inserted with one `creating` snapshot per member volume while the
group row is locked, the lock a group delete (no_group_snapshots guard) and a volume joining
the group take too; so the members it covers are the group's members at that moment.
"""

import uuid

import sqlalchemy as sa
from oslo_log import log as logging

from cinderlike import exception
from cinderlike.db import conditional, listing, transitions
from cinderlike.db import reservations as db_reservations
from cinderlike.db import snapshots as db_snapshots
from cinderlike.db.models import Group, GroupSnapshot, Snapshot, utcnow
from cinderlike.states import group_snapshots as states
from cinderlike.states import groups as group_states
from cinderlike.states import snapshots as snapshot_states

LOG = logging.getLogger(__name__)

GUARDS = {
    # Not the source of a group still being created from it (Cinder's
    # group_creating_from_src(group_snapshot_id=...)).
    'not_a_source': lambda: ~sa.exists().where(
        Group.group_snapshot_id == GroupSnapshot.id, Group.deleted == sa.false(),
        Group.status == group_states.Status.CREATING),
}


def _refusal(action: str, row: GroupSnapshot) -> exception.InvalidGroupSnapshot:
    if action == 'delete':
        return exception.InvalidGroupSnapshot(
            reason='GroupSnapshot status must be available or error, and no Group can be '
                   'currently using it as source for its creation.')
    return exception.InvalidGroupSnapshot(
        reason=f'GroupSnapshot status must be {states.TRANSITIONS[action].expected_text()}, '
               f'but current status is: {row.status}.')


MACHINE = transitions.Machine(
    name='GroupSnapshot', model=GroupSnapshot, table=states.TRANSITIONS, guards=GUARDS,
    refusal=_refusal,
    not_found=lambda gs_id: exception.GroupSnapshotNotFound(group_snapshot_id=gs_id))

LISTING = listing.Listing(
    model=GroupSnapshot,
    filter_clauses=lambda filters: listing.column_clauses(GroupSnapshot, filters),
    marker_not_found=lambda marker: exception.MarkerNotFound(marker=marker))


def get(db, *, group_snapshot_id: str, project_id: str | None = None,
        session=None) -> GroupSnapshot:
    """:raises GroupSnapshotNotFound:"""
    return MACHINE.get(db, row_id=group_snapshot_id, project_id=project_id, session=session)


def lock(s, *, group_snapshot_id: str) -> GroupSnapshot | None:
    """Lock the live group snapshot row for the rest of the transaction (a group created
    from it reads its members under this lock, the one its delete takes)."""
    return s.scalars(sa.select(GroupSnapshot).where(*MACHINE.live(group_snapshot_id))
                     .with_for_update()).first()


def members(db, *, group_snapshot_id: str, session=None) -> list[Snapshot]:
    """The live member snapshots, in the order their volumes joined (created_at, id)."""
    with db.reader(session) as s:
        return list(s.scalars(sa.select(Snapshot).where(
            Snapshot.group_snapshot_id == group_snapshot_id, Snapshot.deleted == sa.false())
            .order_by(Snapshot.created_at, Snapshot.id)))


def create(db, *, values: dict, volumes: list, session) -> tuple[GroupSnapshot, list[Snapshot]]:
    """Insert the group snapshot `creating` and one `creating` snapshot per volume, in the
    caller's transaction (which holds the group's row lock)."""
    row = GroupSnapshot(id=str(uuid.uuid4()), status=states.Status.CREATING, **values)
    session.add(row)
    session.flush()
    snapshots = [db_snapshots.create(db, session=session, values={
        'volume_id': volume.id, 'user_id': values['user_id'],
        'project_id': values['project_id'], 'progress': '0%', 'volume_size': volume.size,
        'display_name': values.get('name'), 'display_description': values.get('description'),
        'volume_type_id': volume.volume_type_id, 'group_snapshot_id': row.id,
        'encryption_key_id': volume.encryption_key_id}) for volume in volumes]
    LOG.info('Group snapshot %s of group %s: created with %d snapshots, status creating',
             row.id, row.group_id, len(snapshots))
    return row, snapshots


def finish_members(db, s, *, group_snapshot_id: str, updates: dict[str, dict],
                   error: bool) -> int:
    """In the caller's (fenced) transaction: every `creating` member → available (with its
    driver *updates*) or error; how many."""
    count = 0
    for snapshot_id, values in updates.items():
        done = dict(values, progress=snapshot_states.DONE_PROGRESS) if not error else {}
        count += db_snapshots.MACHINE.finish(
            db, row_id=snapshot_id, action='create', error=error, values=done, session=s,
            where=[Snapshot.group_snapshot_id == group_snapshot_id])
    return count


def begin_delete(db, *, group_snapshot_id: str,
                 project_id: str | None) -> tuple[GroupSnapshot, dict[str, str]]:
    """CAS into `deleting` with every member snapshot, in one transaction; (the row, the
    statuses it and its members left by id) — for undo_delete.

    :raises GroupSnapshotNotFound, InvalidGroupSnapshot:
    """
    with db.writer() as s:
        left = dict(s.execute(sa.select(GroupSnapshot.id, GroupSnapshot.status).where(
            *MACHINE.live(group_snapshot_id, project_id)).with_for_update()).all())
        left.update(s.execute(sa.select(Snapshot.id, Snapshot.status).where(
            Snapshot.group_snapshot_id == group_snapshot_id, Snapshot.deleted == sa.false())
            .with_for_update()).all())
        row = MACHINE.begin(db, row_id=group_snapshot_id, action='delete',
                            project_id=project_id, session=s)
        conditional.update(s, Snapshot, values={'status': snapshot_states.Status.DELETING,
                                                'updated_at': utcnow()},
                           where=[Snapshot.group_snapshot_id == group_snapshot_id,
                                  Snapshot.deleted == sa.false()])
    return row, left


def undo_delete(db, *, group_snapshot_id: str, statuses: dict[str, str]) -> bool:
    """A delete whose cast was not sent: the group snapshot and its members back to
    *statuses* (begin_delete's), in one transaction; False when it left `deleting`."""
    with db.writer() as s:
        if not MACHINE.finish(db, row_id=group_snapshot_id, action='delete', session=s,
                              status=statuses[group_snapshot_id]):
            return False
        for snapshot_id, status in statuses.items():
            if snapshot_id != group_snapshot_id:
                conditional.update(s, Snapshot, values={'status': status}, where=[
                    *db_snapshots.MACHINE.live(snapshot_id),
                    Snapshot.group_snapshot_id == group_snapshot_id,
                    Snapshot.status == snapshot_states.Status.DELETING])
    return True


def undo_create(db, *, group_snapshot_id: str, project_id: str,
                deltas: dict[str, int]) -> bool:
    """A create whose cast was not sent: the `creating` group snapshot and its `creating`
    members go and their quota is given back, in one transaction; False when it left
    `creating` (the volume service took it up)."""
    with db.writer() as s:
        if not MACHINE.destroy(db, row_id=group_snapshot_id, session=s,
                               where=[GroupSnapshot.status == states.Status.CREATING]):
            return False
        for snapshot in members(db, group_snapshot_id=group_snapshot_id, session=s):
            db_snapshots.MACHINE.destroy(db, row_id=snapshot.id, session=s, where=[
                Snapshot.status == snapshot_states.Status.CREATING])
        db_reservations.release(db, project_id=project_id, session=s,
                                deltas={key: -amount for key, amount in deltas.items()})
    return True
