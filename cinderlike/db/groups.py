"""groups rows and the volume types each allows: create (quota in the same transaction),
lookups, listings and every status transition (states/groups.py through db/transitions.py).

A group is inserted while its group type row is held `for_share`, so a concurrent delete of
the type waits and then sees it. Deleting a group locks its row first (a guarded
transition), and adding a volume to a group locks the same row, so "volume added" and
"group deleted" cannot both win.
"""

import uuid

import sqlalchemy as sa
from oslo_log import log as logging

from cinderlike import exception
from cinderlike.db import conditional, listing, transitions
from cinderlike.db import group_types as db_group_types
from cinderlike.db import pools as db_pools
from cinderlike.db import reservations as db_reservations
from cinderlike.db import volumes as db_volumes
from cinderlike.db.models import (
    Group,
    GroupSnapshot,
    GroupVolumeTypeMapping,
    Snapshot,
    Volume,
    utcnow,
)
from cinderlike.states import groups as states
from cinderlike.states import volumes as volume_states

LOG = logging.getLogger(__name__)

_SOURCE = sa.orm.aliased(Group)


def _members(*extra):
    return sa.exists().where(Volume.group_id == Group.id, Volume.deleted == sa.false(), *extra)


GUARDS = {
    'no_group_snapshots': lambda: ~sa.exists().where(GroupSnapshot.group_id == Group.id,
                                                     GroupSnapshot.deleted == sa.false()),
    'no_volumes': lambda: ~_members(),
    # delete-volumes: no member attached or holding snapshots (Cinder's
    # group_has_volumes_filter(attached_or_with_snapshots=True)).
    'volumes_deletable': lambda: ~_members(sa.or_(
        Volume.attach_status == volume_states.AttachStatus.ATTACHED,
        sa.exists().where(Snapshot.volume_id == Volume.id, Snapshot.deleted == sa.false()))),
    # Not the source of a group still being created from it (Cinder's
    # group_creating_from_src).
    'not_a_source': lambda: ~sa.exists().where(
        _SOURCE.source_group_id == Group.id, _SOURCE.deleted == sa.false(),
        _SOURCE.status == states.Status.CREATING),
}


def _refusal(action: str, row: Group) -> exception.InvalidGroup:
    """Cinder's 400 for *action* refused on *row*."""
    if action in ('delete', 'delete_volumes'):
        reason = ('Group status must be available or error and must not have dependent '
                  'group snapshots' if action == 'delete_volumes' else
                  'Group must not have attached volumes, volumes with snapshots, or '
                  'dependent group snapshots')
        return exception.InvalidGroup(
            reason=f'Cannot delete group {row.id}. {reason}, and it cannot be the source for '
                   'an ongoing group or group snapshot creation.')
    if action == 'update':
        return exception.InvalidGroup(reason='Group status must be available.')
    return exception.InvalidGroup(
        reason=f'Group status must be {states.TRANSITIONS[action].expected_text()}, but '
               f'current status is: {row.status}.')


MACHINE = transitions.Machine(
    name='Group', model=Group, table=states.TRANSITIONS, guards=GUARDS, refusal=_refusal,
    not_found=lambda group_id: exception.GroupNotFound(group_id=group_id),
    children=((GroupVolumeTypeMapping, 'group_id'),))

LISTING = listing.Listing(
    model=Group, filter_clauses=lambda filters: listing.column_clauses(Group, filters),
    marker_not_found=lambda marker: exception.MarkerNotFound(marker=marker))


def get(db, *, group_id: str, project_id: str | None = None, session=None) -> Group:
    """The live group; *project_id* limits the lookup to that project (non-admins).

    :raises GroupNotFound:
    """
    return MACHINE.get(db, row_id=group_id, project_id=project_id, session=session)


def lock(s, *, group_id: str) -> Group | None:
    """Lock the live group row for the rest of the transaction; None when it is gone."""
    return s.scalars(sa.select(Group).where(*MACHINE.live(group_id)).with_for_update()).first()


def volume_type_ids(db, *, group_ids: list[str], session=None) -> dict[str, list[str]]:
    """group id -> the ids of its volume types, in the order they were given."""
    found: dict[str, list[str]] = {group_id: [] for group_id in group_ids}
    with db.reader(session) as s:
        for group_id, type_id in s.execute(
                sa.select(GroupVolumeTypeMapping.group_id, GroupVolumeTypeMapping.volume_type_id)
                .where(GroupVolumeTypeMapping.group_id.in_(group_ids),
                       GroupVolumeTypeMapping.deleted == sa.false())
                .order_by(GroupVolumeTypeMapping.id)):
            found[group_id].append(type_id)
    return found


def volume_ids(db, *, group_ids: list[str], session=None) -> dict[str, list[str]]:
    """group id -> the ids of its live member volumes."""
    found: dict[str, list[str]] = {group_id: [] for group_id in group_ids}
    with db.reader(session) as s:
        for group_id, volume_id in s.execute(
                sa.select(Volume.group_id, Volume.id)
                .where(Volume.group_id.in_(group_ids), Volume.deleted == sa.false())
                .order_by(Volume.created_at, Volume.id)):
            found[group_id].append(volume_id)
    return found


def create(db, *, values: dict, volume_type_ids: list[str], session) -> Group:
    """Insert a group `creating` with its volume types, in the caller's transaction.

    :raises GroupTypeNotFound: the type was deleted meanwhile (held `for_share` until the
        caller's transaction ends).
    """
    db_group_types.get(db, type_id=values['group_type_id'], session=session, for_share=True)
    row = Group(id=values.get('id') or str(uuid.uuid4()), status=states.Status.CREATING,
                **{k: v for k, v in values.items() if k not in ('id', 'status')})
    session.add(row)
    session.flush()
    session.add_all(GroupVolumeTypeMapping(group_id=row.id, volume_type_id=type_id)
                    for type_id in volume_type_ids)
    session.flush()
    LOG.info('Group %s: created, status creating', row.id)
    return row


def place(db, *, group_id: str, host: str, cluster_name: str | None) -> bool:
    """Record the backend the scheduler chose for a `creating` group; False if it moved on."""
    with db.writer() as s:
        count = conditional.update(
            s, Group, values={'host': host, 'cluster_name': cluster_name,
                              'updated_at': utcnow()},
            where=[*MACHINE.live(group_id), Group.status == states.Status.CREATING])
    if count:
        LOG.info('Group %s: placed on %s', group_id, host)
    return bool(count)


def begin_delete(db, *, group_id: str, project_id: str | None,
                 delete_volumes: bool) -> tuple[Group, dict[str, str]]:
    """CAS the group into `deleting`; with *delete_volumes* its members go `deleting` in
    the same transaction (the guard refused any attached member or one with snapshots).
    (The row, the statuses the group and its members left by id) — for undo_delete.

    :raises GroupNotFound, InvalidGroup:
    """
    action = 'delete_volumes' if delete_volumes else 'delete'
    with db.writer() as s:
        left = dict(s.execute(sa.select(Group.id, Group.status).where(
            *MACHINE.live(group_id, project_id)).with_for_update()).all())
        group = MACHINE.begin(db, row_id=group_id, action=action, project_id=project_id,
                              session=s)
        if delete_volumes:
            left.update(s.execute(sa.select(Volume.id, Volume.status).where(
                Volume.group_id == group_id, Volume.deleted == sa.false())).all())
            # NOTE(members): one UPDATE of every member, under the group's row lock that
            # MACHINE.begin took, so no volume joins the group between the guard and here.
            count = conditional.update(
                s, Volume, values={'status': volume_states.Status.DELETING,
                                   'updated_at': utcnow()},
                where=[Volume.group_id == group_id, Volume.deleted == sa.false()])
            LOG.info('Group %s: %d member volumes deleting', group_id, count)
    return group, left


def undo_delete(db, *, group_id: str, delete_volumes: bool, statuses: dict[str, str]) -> bool:
    """A delete whose cast was not sent: the group and the members it moved to `deleting`
    back to *statuses* (begin_delete's), in one transaction; False when the group left
    `deleting` (the volume service took the delete up)."""
    with db.writer() as s:
        if not MACHINE.finish(db, row_id=group_id, session=s, status=statuses[group_id],
                              action='delete_volumes' if delete_volumes else 'delete'):
            return False
        for volume_id, status in statuses.items():
            if volume_id != group_id:
                conditional.update(s, Volume, values={'status': status}, where=[
                    Volume.id == volume_id, Volume.deleted == sa.false(),
                    Volume.group_id == group_id,
                    Volume.status == volume_states.Status.DELETING])
    return True


def undo_create(db, *, group, deltas: dict[str, int], claimed: dict[str, int] | None = None,
                unplaced: bool = True) -> bool:
    """A create whose cast was not sent: the `creating` group and its `creating` member
    volumes go, their quota *deltas* and pool *claimed* gigabytes are given back, in one
    transaction. False when a service took the create up: the group left `creating`, a
    member did, or (*unplaced*, a create for the scheduler) it was placed."""
    members = sa.select(Volume.id).where(Volume.group_id == group.id,
                                         Volume.deleted == sa.false())
    fence = [Group.status == states.Status.CREATING, ~sa.exists().where(
        Volume.id.in_(members), Volume.status != volume_states.Status.CREATING)]
    if unplaced:
        fence.append(Group.host.is_(None))
    with db.writer() as s:
        volume_ids = list(s.scalars(members))
        if not MACHINE.destroy(db, row_id=group.id, session=s, where=fence):
            return False
        for volume_id in volume_ids:
            db_volumes.destroy(db, volume_id=volume_id, session=s)
        for pool, size in (claimed or {}).items():
            db_pools.release(db, pool=pool, size_gb=size, session=s)
        db_reservations.release(db, project_id=group.project_id, session=s,
                                deltas={key: -amount for key, amount in deltas.items()})
    return True


def rename(db, *, group_id: str, project_id: str | None, values: dict) -> None:
    """Write a new name and/or description, whatever the status (no member change).

    :raises GroupNotFound:
    """
    with db.writer() as s:
        if not conditional.update(s, Group, values=dict(values, updated_at=utcnow()),
                                  where=MACHINE.live(group_id, project_id)):
            raise exception.GroupNotFound(group_id=group_id)


def change_members(s, *, group_id: str, add: list[str], remove: list[str]) -> tuple[int, int]:
    """In the caller's (fenced) transaction: *add* volumes that are still in no group and
    *remove* those still in this one; (added, removed).

    NOTE(race): a volume added meanwhile to another group, or deleted, is skipped: each
    UPDATE keeps its own precondition.
    """
    added = conditional.update(
        s, Volume, values={'group_id': group_id, 'updated_at': utcnow()},
        where=[Volume.id.in_(add), Volume.deleted == sa.false(), Volume.group_id.is_(None)]
    ) if add else 0
    removed = conditional.update(
        s, Volume, values={'group_id': None, 'updated_at': utcnow()},
        where=[Volume.id.in_(remove), Volume.deleted == sa.false(), Volume.group_id == group_id]
    ) if remove else 0
    LOG.info('Group %s: %d volumes added, %d removed', group_id, added, removed)
    return added, removed


def destroy_unplaced(db, *, group_id: str, session=None) -> bool:
    """Soft-delete a group no scheduler placed (Cinder deletes it from the database only)."""
    return MACHINE.destroy(db, row_id=group_id, where=[Group.host.is_(None)], session=session)


def fail_unplaced(db, *, group_id: str) -> bool:
    """`error` for a create no backend could take (a group still `creating`, unplaced)."""
    return MACHINE.finish(db, row_id=group_id, action='create', error=True,
                          where=[Group.host.is_(None)])
