"""A volume's migration: migration_status transitions, the destination row and the swap.

The destination row is inserted with its capacity claim in one transaction (the scheduler's
claim, db/pools.py), so it holds its claim by the usual rule (db/pools.py holds_claim). The
swap exchanges where the two rows' data lives: the source keeps its id on the destination
pool, the destination row takes the source's old place and is deleted there, which gives
the source pool's claim back once, through the ordinary delete.
"""

import uuid

import sqlalchemy as sa
from oslo_log import log as logging

from cinderlike import exception
from cinderlike.db import conditional, transitions
from cinderlike.db import pools as db_pools
from cinderlike.db import reservations as db_reservations
from cinderlike.db import volumes as db_volumes
from cinderlike.db import workers as db_workers
from cinderlike.db.models import Volume, VolumeAttachment, utcnow
from cinderlike.states import migrations as states
from cinderlike.states import volumes as volume_states

LOG = logging.getLogger(__name__)

S = volume_states.Status
M = volume_states.MigrationStatus

# Statuses a migration set on the source that its end gives back (previous_status).
_HELD_STATUSES = (S.RETYPING, S.MAINTENANCE)

GUARDS = dict(
    db_volumes.GUARDS,
    not_replicated=lambda: sa.or_(
        Volume.replication_status.is_(None),
        Volume.replication_status.in_(('disabled', 'not-capable'))),
)

# Cinder's 400 when os-migrate_volume's conditional update fails.
MIGRATE_REFUSED = ('Volume %s status must be available or in-use, must not be migrating, '
                   'have snapshots, be replicated, be part of a group and destination '
                   'host/cluster must be different than the current one')


def _refusal(action: str, row) -> exception.InvalidVolume:
    if action == 'migrate':
        return exception.InvalidVolume(reason=MIGRATE_REFUSED % row.id)
    return exception.InvalidVolume(
        reason=f'Volume {row.id} has migration_status {row.migration_status}; cannot {action}.')


MACHINE = transitions.Machine(
    name='VolumeMigration', model=Volume, table=states.TRANSITIONS, guards=GUARDS,
    refusal=_refusal, column='migration_status',
    not_found=lambda volume_id: exception.VolumeNotFound(volume_id=volume_id))


def _not(column, value):
    """Cinder's db_utils.Not: the column differs from *value* or is NULL."""
    return sa.or_(column.is_(None), column != value)


def begin(db, *, volume_id: str, host: str | None, cluster_name: str | None,
          lock_volume: bool = False, retype: bool = False, session=None):
    """`starting`, to another host (or cluster); the row as stored.

    os-migrate_volume starts from available or in-use (an available volume goes to
    `maintenance` with *lock_volume*); a retype's migration from `retyping`.
    :raises VolumeNotFound, InvalidVolume: (Cinder's migrate message)
    """
    where = [Volume.status == S.RETYPING] if retype else [
        Volume.status.in_(volume_states.MIGRATABLE)]
    where.append(_not(Volume.cluster_name, cluster_name) if cluster_name
                 else _not(Volume.host, host))
    # NOTE(order): previous_status first, so MySQL's left-to-right SET copies the old status.
    values = {} if retype else {'previous_status': Volume.status}
    if lock_volume and not retype:
        values['status'] = sa.case((Volume.status == S.AVAILABLE, S.MAINTENANCE),
                                   else_=Volume.status)
    return MACHINE.begin(db, row_id=volume_id, action='migrate', values=values, where=where,
                         session=session)


def _back_to_previous():
    """The source's status after its migration: previous_status when the migration (or
    its retype) had changed it, else unchanged."""
    return sa.case((Volume.status.in_(_HELD_STATUSES), Volume.previous_status),
                   else_=Volume.status)


def fail_unplaced(db, *, volume_id: str, rollback=(), session=None) -> bool:
    """A migration no destination was found for: `error`, the volume back to where it was
    (Cinder's _migrate_volume_set_error / _retype_volume_set_error)."""
    with db.writer(session) as s:
        done = MACHINE.finish(db, row_id=volume_id, action='migrate', error=True,
                              values={'status': _back_to_previous()}, session=s)
        if done and rollback:
            db_reservations.rollback(db, reservations=list(rollback), session=s)
    return done


def undo_begin(db, *, volume_id: str, migration_status: str | None) -> bool:
    """An os-migrate_volume whose cast was not sent: *migration_status* (what begin found)
    again and the status back from `maintenance`; False when the volume left `starting`
    (the scheduler took the migration up)."""
    with db.writer() as s:
        count = conditional.update(s, Volume, values={
            'migration_status': migration_status, 'status': _back_to_previous()},
            where=[*MACHINE.live(volume_id), Volume.migration_status == M.STARTING])
    return bool(count)


class _Gone(Exception):
    """Rolls back the destination's claim when the source left `starting`."""


def place_target(db, *, source, pool: str, host: str, cluster_name: str | None,
                 availability_zone: str, volume_type_id: str,
                 max_gb: float | None = None) -> Volume | None:
    """Claim the source's size on *pool* and insert the destination row there, in one
    transaction; None when the pool is full.

    The row is `creating`, `target:<source>`, uses no quota (Cinder's temporary volume).
    :raises InvalidVolume: when the source is no longer `starting` (nothing is written).
    """
    target = Volume(
        id=str(uuid.uuid4()), use_quota=False, user_id=source.user_id,
        project_id=source.project_id, host=host, cluster_name=cluster_name,
        availability_zone=availability_zone, size=source.size, status=S.CREATING,
        attach_status=volume_states.AttachStatus.DETACHED,
        migration_status=states.target_of(source.id), display_name=source.display_name,
        display_description=source.display_description, volume_type_id=volume_type_id,
        bootable=source.bootable, multiattach=source.multiattach, scheduled_at=utcnow())
    try:
        with db.writer() as s:
            if not db_pools.claim(db, pool=pool, size_gb=source.size, max_gb=max_gb,
                                  session=s):
                return None
            if not conditional.update(s, Volume, values={'updated_at': utcnow()}, where=[
                    *MACHINE.live(source.id), Volume.migration_status == M.STARTING]):
                raise _Gone()
            s.add(target)
            s.flush()
    except _Gone:
        raise exception.InvalidVolume(
            reason=f'Volume {source.id} is no longer starting a migration.') from None
    LOG.info('Volume %(id)s: migration target %(target)s placed on %(host)s',
             {'id': source.id, 'target': target.id, 'host': host})
    return target


def begin_run(db, *, volume_id: str, service_id: int | None, request: dict):
    """`starting` → `migrating` and this service's workers row, in one transaction:
    (row, Hold), or (row, None) when the migration is no longer starting."""
    with db.writer() as s:
        try:
            row = MACHINE.begin(db, row_id=volume_id, action='run', session=s)
        except exception.InvalidVolume:
            return db_volumes.get(db, volume_id=volume_id, session=s), None
        hold = db_workers.begin(db, resource_type=MACHINE.name, resource_id=volume_id,
                                status=M.MIGRATING, service_id=service_id, request=request,
                                session=s)
    return row, hold


def current_hold(db, *, volume_id: str) -> tuple[db_workers.Hold | None, dict]:
    """(Hold, request) of the running migration's workers row, (None, {}) without one:
    the completion callback runs in another thread or process than the copy that took it."""
    row = db_workers.get(db, resource_type=MACHINE.name, resource_id=volume_id)
    if row is None:
        return None, {}
    return (db_workers.Hold(row.id, row.resource_type, row.resource_id, row.epoch),
            dict(row.request or {}))


def get_target(db, *, source_id: str, target_id: str, session=None) -> Volume:
    """The live destination row of *source_id*'s migration.

    :raises VolumeNotFound: (also for a row that is not this migration's target)
    """
    with db.reader(session) as s:
        row = s.scalars(sa.select(Volume).where(
            *MACHINE.live(target_id),
            Volume.migration_status == states.target_of(source_id))).first()
    if row is None:
        raise exception.VolumeNotFound(volume_id=target_id)
    return row


def targets_of(db, *, source_id: str, session=None) -> list[Volume]:
    """Every live destination row of *source_id*'s migrations."""
    with db.reader(session) as s:
        return list(s.scalars(sa.select(Volume).where(
            Volume.deleted == sa.false(),
            Volume.migration_status == states.target_of(source_id))))


# The columns that say where a volume's data lives; the swap exchanges them.
_PLACE = ('host', 'cluster_name', 'availability_zone', 'provider_location', 'provider_auth',
          'provider_id', 'provider_geometry', 'service_uuid', 'launched_at')


def _doomed(target_id: str, values: dict | None = None) -> list:
    """(where, values) pairs moving a destination row to `deleting`."""
    return [Volume.id == target_id, Volume.deleted == sa.false(),
            Volume.status.not_in((S.DELETING,))], dict(values or {}, status=S.DELETING)


def swap(db, *, source, target, hold: db_workers.Hold, new_type_id: str | None = None,
         commit=()) -> bool:
    """Finish a migration (Cinder's finish_volume_migration): the source takes the
    destination's place and data (`_name_id`), the destination row the source's and
    goes to `deleting`; attachments of the destination move to the source; the retype's
    reservations are committed. Fenced on *hold*; False, nothing written, once another
    service took the migration over or it left `migrating`.
    """
    to_source = {key: getattr(target, key) for key in _PLACE}
    to_source.update(_name_id=target.name_id, status=_back_to_previous(),
                     migration_status=M.SUCCESS)
    if new_type_id:
        to_source['volume_type_id'] = new_type_id
    to_target = {key: getattr(source, key) for key in _PLACE}
    to_target['_name_id'] = source.name_id
    where, values = _doomed(target.id, to_target)
    with db.writer() as s:
        if not conditional.update(s, Volume, values=to_source, where=[
                *MACHINE.live(source.id), Volume.migration_status == M.MIGRATING,
                db_workers.held(hold)]):
            return False
        conditional.update(s, Volume, values=values, where=where)
        conditional.update(s, VolumeAttachment, values={'volume_id': source.id}, where=[
            VolumeAttachment.volume_id == target.id, VolumeAttachment.deleted == sa.false()])
        if commit:
            db_reservations.commit(db, reservations=list(commit), session=s)
        db_workers.finish(db, hold=hold, session=s)
    LOG.info('Volume %(id)s: migration finished, now on %(host)s; %(old)s holds its old '
             'place', {'id': source.id, 'host': target.host, 'old': target.id})
    return True


def fail(db, *, source_id: str, hold: db_workers.Hold | None, rollback=(),
         session=None) -> list[Volume]:
    """End a running migration in `error`: the source back to where it was, the retype's
    reservations rolled back, every destination row `deleting`. Fenced on *hold* (a
    cleanup passes the Hold it took over). Returns the destination rows to delete, or []
    when the migration had moved on.

    A destination still `creating` gives its claim back here: by the claim rule
    (db/pools.py holds_claim) a `deleting` row that never launched holds none, so its
    delete releases nothing.
    """
    with db.writer(session) as s:
        where = [db_workers.held(hold)] if hold is not None else []
        if not conditional.update(s, Volume, values={
                'migration_status': M.ERROR, 'status': _back_to_previous()}, where=[
                *MACHINE.live(source_id),
                Volume.migration_status.in_((M.STARTING, M.MIGRATING)), *where]):
            return []
        # NOTE(race): locked, so a create finishing on the destination waits and then
        # finds the row `deleting`; what is read here is what the claim rule sees.
        targets = list(s.scalars(sa.select(Volume).where(
            Volume.deleted == sa.false(), Volume.migration_status == states.target_of(source_id))
            .with_for_update()))
        for target in targets:
            held_claim = db_pools.holds_claim(target)
            target_where, values = _doomed(target.id)
            if conditional.update(s, Volume, values=values, where=target_where) and \
                    held_claim and target.launched_at is None:
                db_pools.release(db, pool=db_pools.pool_of(target), size_gb=target.size,
                                 session=s)
        if rollback:
            db_reservations.rollback(db, reservations=list(rollback), session=s)
        if hold is not None:
            db_workers.finish(db, hold=hold, session=s)
    LOG.info('Volume %s: migration failed, migration_status error', source_id)
    return targets
