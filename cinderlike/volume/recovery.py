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

from cinderlike import exception, quota
from cinderlike.db import services as db_services
from cinderlike.db import volumes as db_volumes
from cinderlike.db import workers as db_workers
from cinderlike.db.models import utcnow
from cinderlike.states.volumes import Status
from cinderlike.volume import claims

LOG = logging.getLogger(__name__)

# Rows settled side by side: a resumed delete runs the driver, which may be slow.
MAX_PARALLEL = 8


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
    taken = []
    for row in rows:
        claim = db_workers.claim_for_cleanup(manager.db, worker=row,
                                             service_id=manager.service_id)
        if claim is None:
            LOG.debug('%s %s: workers row already taken by another service',
                      row.resource_type, row.resource_id)
            continue
        taken.append((row, claim))
    if not taken:
        return 0
    with concurrent.futures.ThreadPoolExecutor(min(MAX_PARALLEL, len(taken))) as pool:
        for row, claim in taken:
            pool.submit(_clean_one, manager, ctx, row, claim)
    return len(taken)


def _clean_one(manager, ctx, row, claim) -> None:
    """Settle one taken row; on failure give it back so a later cleanup retries it."""
    try:
        _settle(manager, ctx, row, claim)
    except Exception:
        LOG.exception('%s %s: cleanup of its %s operation failed; the workers row goes back '
                      'to service %s', row.resource_type, row.resource_id, row.status,
                      row.service_id)
        db_workers.give_back(manager.db, claim=claim, worker=row)


def _settle(manager, ctx, row, claim) -> None:
    if row.resource_type != db_workers.VOLUME:
        raise exception.InvalidInput(reason=f'no cleanup for {row.resource_type} rows')
    try:
        volume = db_volumes.get(manager.db, volume_id=row.resource_id)
    except exception.VolumeNotFound:
        volume = None
    if volume is None or volume.status != row.status:
        # NOTE(stale): the operation ended but its row stayed (Cinder keeps a row whose
        # status did not change): nothing to settle.
        LOG.info('Volume %s is no longer %s; removing its workers row', row.resource_id,
                 row.status)
        db_workers.finish(manager.db, claim=claim)
        return
    settle = _SETTLERS.get(row.status)
    if settle is None:
        raise exception.InvalidInput(reason=f'no cleanup for volumes {row.status}')
    settle(manager, ctx, volume, row, claim)


def _creating(manager, ctx, volume, row, claim) -> None:
    """`error`, as Cinder's: the pool's claim goes back (the quota stays used until the user
    deletes the volume, which also removes whatever the backend made of it)."""
    with manager.db.writer() as s:
        done = db_volumes.finish(manager.db, volume_id=volume.id, action='create', error=True,
                                 where=[db_workers.held(claim)], session=s)
        if done:
            if volume.host:
                claims.release(manager.db, volume, volume.size, session=s)
            db_workers.finish(manager.db, claim=claim, session=s)
    if not done:
        _moved_on(manager, claim)
        return
    LOG.warning('Volume %s: create interrupted on service %s; set to error', volume.id,
                row.service_id)


def _deleting(manager, ctx, volume, row, claim) -> None:
    """Run the delete again, under the volume's delete lock (Cinder's)."""
    LOG.warning('Volume %s: delete interrupted on service %s; resuming it', volume.id,
                row.service_id)
    manager.delete_volume(ctx, volume_id=volume.id)


def _extending(manager, ctx, volume, row, claim) -> None:
    """`error_extending`: the reservations roll back and the pool's extra claim goes back."""
    request = row.request or {}
    with manager.db.writer() as s:
        done = db_volumes.finish(manager.db, volume_id=volume.id, action='extend', error=True,
                                 where=[db_workers.held(claim)], session=s)
        if done:
            quota.rollback(manager.db, ctx, request.get('reservations') or [], session=s)
            if request.get('new_size'):
                claims.release(manager.db, volume, request['new_size'] - volume.size,
                               session=s)
            db_workers.finish(manager.db, claim=claim, session=s)
    if not done:
        _moved_on(manager, claim)
        return
    LOG.warning('Volume %s: extend interrupted on service %s; set to error_extending',
                volume.id, row.service_id)


def _moved_on(manager, claim) -> None:
    """The volume left the status between our read and our write: drop the stale row (a
    no-op when another service took it over meanwhile: the delete is fenced too)."""
    if not db_workers.fenced(manager.db, claim=claim, operation='cleanup'):
        db_workers.finish(manager.db, claim=claim)


_SETTLERS = {Status.CREATING: _creating, Status.DELETING: _deleting,
             Status.EXTENDING: _extending}


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
