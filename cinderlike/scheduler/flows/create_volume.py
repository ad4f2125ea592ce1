"""cinderlike-scheduler's create_volume flow: request spec → place with a claim → cast.

Candidates come best first from the filter scheduler; the first pool whose database claim
succeeds gets the volume. No candidate left means NoValidBackend: the volume goes to `error`
with a user message and a `scheduler.create_volume` error notification.
"""

import copy

from oslo_log import log as logging
from taskflow import task

from cinderlike import capacity, exception, flow, messages
from cinderlike.db import placements
from cinderlike.db import volumes as db_volumes
from cinderlike.states.volumes import Status

LOG = logging.getLogger(__name__)


def notify_error(notifier, ctx, *, method, volume_id, request_spec, status, reason):
    """Cinder's `scheduler.<method>` error notification (_set_volume_state_and_notify)."""
    payload = {'request_spec': request_spec,
               'volume_properties': request_spec.get('volume_properties', {}),
               'volume_id': volume_id, 'state': {'volume_state': {'status': status}},
               'method': method, 'reason': str(reason)}
    notifier.error(ctx, f'scheduler.{method}', payload)


def thick_ceiling(pool, request_spec):
    """The lower ceiling of a thick volume on a thin-capable pool (None: the pool's own)."""
    extra_specs = (request_spec.get('volume_type') or {}).get('extra_specs')
    if capacity.thin_requested(extra_specs) or not pool.thin_provisioning_support:
        return None
    return pool.limit_gb(False)


class ExtractSchedulerSpec(task.Task):
    """The request_spec as the API sent it, with the volume id it is about."""

    default_provides = 'request_spec'

    def execute(self, volume_id, request_spec):
        spec = dict(request_spec or {})
        spec.setdefault('volume_id', volume_id)
        return spec


def _count(scheduler, outcome: str) -> None:
    if scheduler.metrics is not None:
        scheduler.metrics.placements.labels(outcome).inc()


def _sent(received: dict, placed: dict) -> dict:
    """The filter properties a placed create carries to the volume service: those the
    scheduler received, with this attempt's retry.

    NOTE(perf): not the filter properties as weighed. Those also hold what
    FilterScheduler.prepare() derives from the request spec (the spec itself, the volume
    type twice more, size, zone, metadata), which the volume service never reads and a
    reschedule derives again; sent, they doubled the cast that the scheduler encodes and
    the volume service decodes, each twice (oslo.messaging's envelope).
    """
    sent = {key: value for key, value in received.items() if key != 'retry'}
    if 'retry' in placed:
        sent['retry'] = placed['retry']
    return sent


class ScheduleCreateVolume(task.Task):
    """Weigh, claim the first pool that still has room, place the volume there, cast."""

    def execute(self, ctx, scheduler, volume_id, request_spec, filter_properties):
        try:
            pool, props = self._place(ctx, scheduler, volume_id, request_spec, filter_properties)
        except exception.NoValidBackend as error:
            _count(scheduler, 'no_valid_backend')
            self._fail(ctx, scheduler, volume_id, request_spec, error)
            return
        if pool is None:
            _count(scheduler, 'gone')
            return  # the volume was deleted (or placed by another cast) meanwhile
        _count(scheduler, 'placed')
        scheduler.volume_api.create_volume(
            ctx, volume_id=volume_id, host=pool.volume_host, request_spec=request_spec,
            filter_properties=_sent(filter_properties, props),
            cluster_name=pool.volume_cluster_name, allow_reschedule=True)

    def _place(self, ctx, scheduler, volume_id, request_spec, filter_properties):
        """(pool, filter_properties as counted) or (None, ...) when the volume moved on.

        The first pass filters on claims read up to a second ago; when it places nothing,
        a second pass on fresh claims decides before NoValidBackend is declared.
        :raises: NoValidBackend
        """
        size = (request_spec.get('volume_properties') or {}).get('size') or \
            request_spec.get('size') or 0
        hm, placer = scheduler.host_manager, scheduler.filter_scheduler
        for fresh in (False, True):
            def weigh(fresh=fresh):
                props = copy.deepcopy(filter_properties or {})
                return props, placer.weighed_candidates(hm.pools(fresh_claims=fresh),
                                                        request_spec, props, ctx)
            # NOTE(outage): the claims and filters read the database; a read that fails on
            # a dead connection must not leave the create unplaced (see place_volume).
            props, weighed = scheduler.db.retrying(
                weigh, what=f'Weighing the pools for volume {volume_id}')
            for candidate in weighed:
                pool = candidate.obj
                outcome = placements.place_volume(
                    scheduler.db, volume_id=volume_id, pool=pool.backend_id, size_gb=size,
                    host=pool.volume_host, cluster_name=pool.volume_cluster_name,
                    max_gb=thick_ceiling(pool, request_spec))
                if outcome is placements.Placed.GONE:
                    return None, props
                if outcome is placements.Placed.PLACED:
                    hm.consumed(pool, size)
                    placer.add_retry_backend(props, pool.backend_id)
                    return pool, props
                if scheduler.metrics is not None:
                    scheduler.metrics.claim_failures.labels(pool.backend_id).inc()
                LOG.debug('Claim of %(size)s GB on %(pool)s failed; next candidate',
                          {'size': size, 'pool': pool.backend_id})
        raise exception.NoValidBackend(reason='No weighed backends available')

    def _fail(self, ctx, scheduler, volume_id, request_spec, error):
        LOG.warning('Failed to schedule volume %(id)s: %(error)s',
                    {'id': volume_id, 'error': error})
        # NOTE(race): the message commits with the `error` status, so a client that sees
        # the status finds the message (written after it, a listing could miss it).
        with scheduler.db.writer() as s:
            if not db_volumes.fail_unplaced(scheduler.db, volume_id=volume_id, session=s):
                return
            messages.create(scheduler.db, ctx, conf=scheduler.conf,
                            action=messages.Action.SCHEDULE_ALLOCATE_VOLUME,
                            resource_uuid=volume_id, exception=error, session=s)
        notify_error(scheduler.notifier, ctx, method='create_volume', volume_id=volume_id,
                     request_spec=request_spec, status=Status.ERROR, reason=error)


# NOTE(engine): run by cinderlike/flow.py, not a taskflow engine (see there why).
FLOW = flow.LinearFlow('volume_create_scheduler', ExtractSchedulerSpec(), ScheduleCreateVolume())


def run(ctx, scheduler, *, volume_id, request_spec, filter_properties):
    """Run the flow; *scheduler* gives db, conf, host_manager, filter_scheduler, notifier
    and volume_api (the SchedulerManager)."""
    FLOW.run({'ctx': ctx, 'scheduler': scheduler, 'volume_id': volume_id,
              'request_spec': request_spec, 'filter_properties': filter_properties or {}},
             timer=scheduler.flow_timer())
