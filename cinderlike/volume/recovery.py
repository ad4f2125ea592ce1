"""cinderlike-volume: settle the in-flight operations (workers rows) of a service that stopped.

Cinder's do_cleanup: at start-up for our own rows, on POST /workers/cleanup for the services an
operator names, and (beyond Cinder) automatically for a cluster peer whose heartbeat is older
than `service_down_time`. Each row is first taken by compare-and-swap, bumping its epoch, so
one service settles it and the old holder's late status writes are refused (fencing).
"""

import concurrent.futures
import dataclasses
import datetime

from oslo_log import log as logging

from cinderlike import exception, messages
from cinderlike.db import attachments as db_attachments
from cinderlike.db import group_snapshots as db_group_snapshots
from cinderlike.db import groups as db_groups
from cinderlike.db import migrations_status as db_migrations
from cinderlike.db import services as db_services
from cinderlike.db import settle as db_settle
from cinderlike.db import snapshots as db_snapshots
from cinderlike.db import volumes as db_volumes
from cinderlike.db import workers as db_workers
from cinderlike.db.models import utcnow
from cinderlike.states.attachments import Status as AttachmentStatus
from cinderlike.states.group_snapshots import Status as GroupSnapshotStatus
from cinderlike.states.groups import Status as GroupStatus
from cinderlike.states.snapshots import Status as SnapshotStatus
from cinderlike.states.volumes import MigrationStatus, Status
from cinderlike.volume import attachments, extend, migrate, retype, snapshots
from cinderlike.volume.flows import create_volume as create_flow

LOG = logging.getLogger(__name__)

# Rows settled side by side: a resumed delete runs the driver, which may be slow.
MAX_PARALLEL = 8
# Rows one sweep looks at; the next sweep takes the rest.
SWEEP_BATCH = 500


@dataclasses.dataclass(frozen=True)
class CleanupRequest:
    """Which rows to settle (Cinder's CleanupRequest): JSON-safe over RPC via as_dict."""

    service_ids: tuple[int, ...] | None = None
    resource_type: str | None = None
    resource_id: str | None = None
    until: datetime.datetime | None = None

    def as_dict(self) -> dict:
        return {'service_ids': None if self.service_ids is None else list(self.service_ids),
                'resource_type': self.resource_type, 'resource_id': self.resource_id,
                'until': self.until.isoformat() if self.until else None}

    @classmethod
    def from_dict(cls, data: dict) -> 'CleanupRequest':
        until = data.get('until')
        ids = data.get('service_ids')
        return cls(service_ids=None if ids is None else tuple(ids),
                   resource_type=data.get('resource_type'),
                   resource_id=data.get('resource_id'),
                   until=datetime.datetime.fromisoformat(until) if until else None)


def do_cleanup(manager, ctx, request: CleanupRequest) -> int:
    """Take and settle every row *request* selects; how many this service took."""
    rows = db_workers.get_all(manager.db, service_ids=request.service_ids,
                              resource_type=request.resource_type,
                              resource_id=request.resource_id, until=request.until or utcnow())
    return _take_and_settle(manager, ctx, rows)


def sweep_lost(manager, ctx) -> int:
    """Settle the operations no service took up within `lost_operation_timeout`: workers rows
    the API wrote (no service yet) whose cast or the scheduler's was lost, or whose service
    died before taking it, and rows a service handed back to an API that died before
    answering (an attachment create's connect). How many this service took.

    Any volume service may fail a create or an extend (the take-over CAS lets one act); a
    delete, or an attachment's detach or connect, is settled only by a service of the
    resource's backend, which has the driver.
    """
    cutoff = utcnow() - datetime.timedelta(seconds=manager.conf.lost_operation_timeout)
    rows = [row for row in db_workers.get_all(manager.db, untaken=True, until=cutoff,
                                              limit=SWEEP_BATCH)
            if _sweepable(manager, row)]
    taken = _take_and_settle(manager, ctx, rows)
    if taken:
        LOG.warning('Settled %d operations no service took up within %s s', taken,
                    manager.conf.lost_operation_timeout)
    return taken


def _sweepable(manager, row) -> bool:
    entry = _SETTLERS.get(row.resource_type)
    settler = entry and entry[1].get(row.status)
    if settler is None:
        return False
    if not getattr(settler, 'needs_backend', False):
        return True
    volume_id = row.resource_id
    machine = _SETTLERS[row.resource_type][0]
    if machine.name in (db_snapshots.MACHINE.name, db_attachments.MACHINE.name):
        try:
            volume_id = machine.get(manager.db, row_id=row.resource_id).volume_id
        except exception.NotFound:
            return True
    volume = db_volumes.get_any(manager.db, volume_id=volume_id)
    # NOTE(stale): a resource gone is settled by removing its row, which anyone may do.
    return volume is None or (volume.cluster_name or volume.host or '').partition('#')[0] in (
        manager.host, manager.cluster_name)


def _take_and_settle(manager, ctx, rows) -> int:
    """Take each of *rows* by CAS and settle the ones taken; how many were taken."""
    taken = []
    for row in rows:
        hold = db_workers.take_over(manager.db, worker=row, service_id=manager.service_id)
        if hold is None:
            LOG.debug('%s %s: workers row already taken by another service',
                      row.resource_type, row.resource_id)
            continue
        taken.append((row, hold))
    if not taken:
        return 0
    with concurrent.futures.ThreadPoolExecutor(min(MAX_PARALLEL, len(taken))) as pool:
        for row, hold in taken:
            pool.submit(_clean_one, manager, ctx, row, hold)
    return len(taken)


def _clean_one(manager, ctx, row, hold) -> None:
    """Settle one taken row; on failure give it back so a later cleanup retries it."""
    try:
        _settle(manager, ctx, row, hold)
    except Exception:
        LOG.exception('%s %s: cleanup of its %s operation failed; the workers row goes back '
                      'to service %s', row.resource_type, row.resource_id, row.status,
                      row.service_id)
        db_workers.give_back(manager.db, hold=hold, worker=row)


def _settle(manager, ctx, row, hold) -> None:
    """Settle *row* by its resource type's rule for the status it was left in."""
    entry = _SETTLERS.get(row.resource_type)
    if entry is None:
        raise exception.InvalidInput(reason=f'no cleanup for {row.resource_type} rows')
    machine, by_status = entry
    try:
        resource = machine.get(manager.db, row_id=row.resource_id)
    except exception.NotFound:
        resource = None
    if resource is None or getattr(resource, machine.column) != row.status:
        # NOTE(stale): the operation ended but its row stayed (Cinder keeps a row whose
        # status did not change): nothing to settle.
        LOG.info('%s %s is no longer %s; removing its workers row', row.resource_type,
                 row.resource_id, row.status)
        db_workers.finish(manager.db, hold=hold)
        return
    settler = by_status.get(row.status)
    if settler is None:
        raise exception.InvalidInput(
            reason=f'no cleanup for {row.resource_type} rows {row.status}')
    settler(manager, ctx, machine, resource, row, hold)


def _verdict(outcome_of, message):
    """A settler that ends the operation with *outcome_of(resource, workers row)* and tells
    the resource's project why with *message* ((resource type, action, detail) of
    messages.py; None where Cinder defines no message for the operation)."""
    def settle(manager, ctx, machine, resource, row, hold):
        outcome = outcome_of(resource, row.request or {})
        settled = db_settle.settle(manager.db, machine, row=resource, hold=hold,
                                   outcome=outcome)
        if settled is db_settle.Settled.MOVED_ON:
            # NOTE(stale): it changed between our read and our write (left the status, or
            # a scheduler placed it): the row goes back, and the next cleanup or sweep
            # settles it from a fresh read (or removes it when the operation ended).
            db_workers.give_back(manager.db, hold=hold, worker=row)
        if settled is db_settle.Settled.DONE:
            LOG.warning('%s %s: %s interrupted on service %s; settled as %s',
                        row.resource_type, resource.id, outcome.action,
                        row.service_id or '(none: the operation never reached one)',
                        machine.table[outcome.action].on_error)
            if message is None:
                return
            resource_type, action, detail = message(resource)
            messages.create(manager.db, ctx, conf=manager.conf, action=action,
                            resource_type=resource_type, resource_uuid=resource.id,
                            detail=detail, project_id=resource.project_id)
    return settle


def _create_message(volume):
    """An unplaced create failed scheduling; a placed one failed on its backend."""
    action = (messages.Action.SCHEDULE_ALLOCATE_VOLUME if volume.host is None
              else messages.Action.CREATE_VOLUME_FROM_BACKEND)
    return messages.Resource.VOLUME, action, messages.Detail.UNKNOWN_ERROR


def _resume(method: str, key: str | None = None, **kwargs):
    """A settler that runs the manager's *method* again (a delete, under its lock), with
    the resource id as *key* (`<name>_id` by default) and *kwargs*."""
    def settle(manager, ctx, machine, resource, row, hold):
        LOG.warning('%s %s: %s interrupted on service %s; resuming it', row.resource_type,
                    resource.id, method, row.service_id)
        getattr(manager, method)(ctx, **{key or f'{machine.name.lower()}_id': resource.id},
                                 **kwargs)
    settle.needs_backend = True
    return settle


def _group_snapshot_failed(manager, ctx, machine, resource, row, hold) -> None:
    """An interrupted group snapshot ends `error` with its `creating` members, in one
    fenced transaction (their quota stays used until they are deleted, as Cinder's)."""
    creating = {snap.id: {} for snap in db_group_snapshots.members(
        manager.db, group_snapshot_id=resource.id) if snap.status == SnapshotStatus.CREATING}
    with manager.db.writer() as s:
        settled = db_settle.settle(manager.db, machine, row=resource, hold=hold,
                                   outcome=db_settle.Outcome(action='create', error=True),
                                   session=s)
        if settled is db_settle.Settled.DONE:
            db_group_snapshots.finish_members(manager.db, s, group_snapshot_id=resource.id,
                                              updates=creating, error=True)
    if settled is db_settle.Settled.MOVED_ON:
        db_workers.finish(manager.db, hold=hold)
    if settled is db_settle.Settled.DONE:
        LOG.warning('GroupSnapshot %s: create interrupted on service %s; settled as error',
                    resource.id, row.service_id)


# NOTE(cinder): create → error (a volume's claim goes back, the quota stays used until the
# user deletes it), delete (and unmanage) → run again, extend → error_extending with its
# reservations rolled back, as Cinder's do_cleanup; snapshots likewise. Beyond Cinder: a
# retype → back to where it was, reservations rolled back; a detached volume's migration →
# error, its destination deleted (volume/migrate.py settle_interrupted). Groups likewise.
_SETTLERS = {
    db_volumes.MACHINE.name: (db_volumes.MACHINE, {
        Status.CREATING: _verdict(lambda volume, request: dataclasses.replace(
            create_flow.failed(volume), where=(db_volumes.same_placement(volume),)),
            _create_message),
        Status.DELETING: _resume('delete_volume'),
        Status.UNMANAGING: _resume('delete_volume', unmanage_only=True),
        Status.EXTENDING: _verdict(extend.failed, lambda volume: (
            messages.Resource.VOLUME, messages.Action.EXTEND_VOLUME,
            messages.Detail.UNKNOWN_ERROR)),
        # NOTE(messages): Cinder has no user-message action for a retype; an interrupted
        # one leaves the volume as it was, with its old type, which the user sees.
        Status.RETYPING: _verdict(lambda volume, request: retype.failed(request), None),
    }),
    db_migrations.MACHINE.name: (db_migrations.MACHINE, {
        MigrationStatus.MIGRATING: migrate.settle_interrupted,
    }),
    db_snapshots.MACHINE.name: (db_snapshots.MACHINE, {
        SnapshotStatus.CREATING: _verdict(
            lambda snapshot, request: snapshots.failed(snapshot), lambda snapshot: (
                messages.Resource.VOLUME_SNAPSHOT, messages.Action.SNAPSHOT_CREATE,
                messages.Detail.SNAPSHOT_CREATE_ERROR)),
        SnapshotStatus.DELETING: _resume('delete_snapshot'),
        SnapshotStatus.UNMANAGING: _resume('delete_snapshot', unmanage_only=True),
    }),
    db_groups.MACHINE.name: (db_groups.MACHINE, {
        # NOTE(messages): Cinder has no user-message action for groups.
        GroupStatus.CREATING: _verdict(
            lambda group, request: db_settle.Outcome(action='create', error=True), None),
        GroupStatus.DELETING: _resume('delete_group'),
        # NOTE(members): an interrupted update recorded no member change; the group is
        # `error`, as after a driver failure, and may be updated again once reset.
        GroupStatus.UPDATING: _verdict(
            lambda group, request: db_settle.Outcome(action='update', error=True), None),
    }),
    db_group_snapshots.MACHINE.name: (db_group_snapshots.MACHINE, {
        GroupSnapshotStatus.CREATING: _group_snapshot_failed,
        GroupSnapshotStatus.DELETING: _resume('delete_group_snapshot', 'group_snapshot_id'),
    }),
    # NOTE(attachments): beyond Cinder, which leaves them `attaching`/`detaching` for good:
    # a connect whose service died, or a create's connect whose API died before answering
    # (the row the connect handed back), ends error_attaching; a detach whose API died (or
    # whose create's answer was lost) is resumed; a reservation to connect whose API died
    # before the call is undone.
    db_attachments.MACHINE.name: (db_attachments.MACHINE, {
        AttachmentStatus.RESERVED: attachments.settle_lost_reservation,
        AttachmentStatus.ATTACHING: attachments.settle_interrupted_connect,
        AttachmentStatus.DETACHING: attachments.settle_interrupted_detach,
    }),
}


def own_request(manager) -> CleanupRequest:
    """Start-up cleanup: every row of this service, taken before now."""
    return CleanupRequest(service_ids=(manager.service_id,), until=utcnow())


def down_peers(manager) -> list:
    """Members of our cluster (same binary) whose heartbeat is older than service_down_time."""
    if not manager.cluster_name:
        return []
    now = utcnow()
    return [row for row in db_services.get_all(manager.db, binary=manager.BINARY,
                                               cluster_name=manager.cluster_name)
            if row.id != manager.service_id
            and not db_services.is_up(row, down_time=manager.conf.service_down_time, now=now)]


def clean_down_peers(manager, ctx) -> int:
    """Automatic cleanup: take over and settle the rows of every down cluster peer."""
    peers = down_peers(manager)
    if not peers:
        return 0
    taken = do_cleanup(manager, ctx, CleanupRequest(service_ids=tuple(p.id for p in peers),
                                                    until=utcnow()))
    if taken:
        LOG.warning('Took over %d in-flight operations of down cluster members %s', taken,
                    ', '.join(p.host for p in peers))
    return taken
