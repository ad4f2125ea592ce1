"""cinderlike-scheduler's placement: filter, then weigh, the pools for one request.

Pure: pools come in as PoolStates, the answer is every passing pool best first, so the
caller can claim capacity on the first and fall through to the next when the claim fails.
"""

import copy
import random

from oslo_log import log as logging

from cinderlike import exception
from cinderlike.scheduler import filters as filters_mod
from cinderlike.scheduler import pool_index
from cinderlike.scheduler import request as request_mod
from cinderlike.scheduler import weighers as weighers_mod
from cinderlike.scheduler.filters import base as filters_base
from cinderlike.scheduler.filters import retry as retry_filter
from cinderlike.scheduler.weighers import base as weigh_base
from cinderlike.scheduler.weighers import capacity as capacity_weigher

LOG = logging.getLogger(__name__)

DEFAULT_FILTERS = ('AvailabilityZoneFilter', 'CapacityFilter', 'CapabilitiesFilter')
DEFAULT_WEIGHERS = ('CapacityWeigher',)


def _backend_of(backend_id):
    """'host@backend#pool' -> 'host@backend'."""
    return backend_id.partition('#')[0]


class FilterScheduler:
    """Cinder's FilterScheduler candidate selection, without its host manager or RPC."""

    def __init__(self, *, filters=DEFAULT_FILTERS, weighers=DEFAULT_WEIGHERS, multipliers=None,
                 max_attempts=3, volume_locations=None, volume_counts=None, rng=random.random):
        """*volume_locations* feeds Same/DifferentBackendFilter, *volume_counts* the
        VolumeNumberWeigher (both read the database in the scheduler service)."""
        if max_attempts < 1:
            raise exception.InvalidInput(
                reason="Invalid value for 'scheduler_max_attempts', must be >=1")
        self.max_attempts = max_attempts
        self.filters = filters_mod.load(filters, volume_locations=volume_locations)
        self.weighers = weighers_mod.load(weighers, multipliers=multipliers,
                                          volume_counts=volume_counts, rng=rng)
        # NOTE(index): pool_index.py reproduces CapacityWeigher alone, spreading, over
        # filters that judge each pool by itself and read nothing else per request.
        self._indexable = (
            [type(w) for w in self.weighers] == [capacity_weigher.CapacityWeigher]
            and self.weighers[0].multiplier > 0
            and all(isinstance(f, filters_base.BatchFilter | retry_filter.RetryFilter)
                    for f in self.filters))

    @classmethod
    def from_conf(cls, conf, **deps):
        """Build from the [DEFAULT] scheduler options (conf/scheduler_filters.py)."""
        return cls(filters=conf.scheduler_default_filters,
                   weighers=conf.scheduler_default_weighers,
                   multipliers={name: conf[name] for name in weighers_mod.DEFAULT_MULTIPLIERS},
                   max_attempts=conf.scheduler_max_attempts, **deps)

    def populate_retry(self, filter_properties, volume_id=None):
        """Count this attempt in filter_properties['retry'] (Cinder's _populate_retry).

        :raises: NoValidBackend once the attempts exceed scheduler_max_attempts.
        """
        retry = filter_properties.pop('retry', {})
        if self.max_attempts == 1:
            return  # rescheduling is disabled
        if retry:
            retry['num_attempts'] += 1
        else:
            retry = {'num_attempts': 1, 'backends': [], 'hosts': []}
        filter_properties['retry'] = retry
        exc = retry.pop('exc', None)
        backends = retry.get('backends', retry.get('hosts'))
        if exc and backends:
            LOG.error('Error scheduling %(volume_id)s from last vol-service: '
                      '%(last_backend)s : %(exc)s',
                      {'volume_id': volume_id, 'last_backend': backends[-1], 'exc': exc})
        if retry['num_attempts'] > self.max_attempts:
            raise exception.NoValidBackend(
                reason=f'Exceeded max scheduling attempts {self.max_attempts:d} for volume '
                       f'{volume_id}')

    @staticmethod
    def add_retry_backend(filter_properties, backend_id):
        """Record the chosen pool so that a reschedule does not pick it again."""
        retry = filter_properties.get('retry')
        if not retry:
            return
        for key in ('hosts', 'backends'):
            if retry.get(key) is not None:
                retry[key].append(backend_id)

    def prepare(self, request_spec, filter_properties=None, context=None):
        """Count the attempt and fill filter_properties as Cinder does; return the request."""
        if filter_properties is None:
            filter_properties = {}
        volume = request_spec.get('volume_properties') or {}
        self.populate_retry(filter_properties,
                            request_spec.get('volume_id') or volume.get('volume_id'))
        volume_type = request_spec.get('volume_type')
        resource_type = volume_type if volume_type is not None else {}
        if volume.get('multiattach') and 'multiattach' not in (
                resource_type.get('extra_specs') or {}):
            # A multiattach volume needs a backend that can do it (Cinder adds the spec).
            resource_type = copy.deepcopy(resource_type)
            resource_type.setdefault('extra_specs', {})['multiattach'] = '<is> True'
            volume_type = resource_type
        filter_properties.update({
            'request_spec': request_spec, 'volume_type': volume_type,
            'resource_type': resource_type, 'size': volume.get('size'),
            'availability_zone': volume.get('availability_zone'),
            'user_id': volume.get('user_id'), 'metadata': volume.get('metadata'),
            'qos_specs': volume.get('qos_specs')})
        return request_mod.PlacementRequest.build(request_spec, filter_properties, context)

    def filter_pools(self, pools, request, *, quiet=False):
        """The pools that pass every filter, in their original order; *quiet* does not log
        which filter left none (a part of the pools is being filtered)."""
        # NOTE(retry): issue 3 wants a reschedule to avoid the pools already tried, so they
        # are dropped whether or not RetryFilter is configured (Cinder's default omits it).
        attempted = retry_filter.attempted_backends(request.filter_properties)
        pools = [p for p in pools if p.backend_id not in attempted] if attempted else list(pools)
        for flt in self.filters:
            before = len(pools)
            passed = flt.select(pools, request)
            if passed is None:
                continue
            pools = passed
            if not pools:
                if not quiet:
                    LOG.info('Filter %(name)s returned 0 of %(before)d pools',
                             {'name': flt.name, 'before': before})
                break
        return pools

    def _indexed(self, pools, request):
        """The ranking from the view's PoolIndex, or None where only the full scan gives
        weigh()'s answer (other weighers, stacking, a filter that is not per pool, a
        request bound to a backend, a weight that is not finite, nothing passing)."""
        if not self._indexable or request.request_spec.get('resource_backend'):
            return None
        index = getattr(pools, 'weight_index', None)
        if index is None or not index.usable:
            return None
        return pool_index.ranked(index, thin=request.thin, multiplier=self.weighers[0].multiplier,
                                 select=lambda part: self.filter_pools(part, request,
                                                                       quiet=True))

    def weighed_candidates(self, pools, request_spec, filter_properties=None, context=None):
        """Every passing pool as a WeighedPool, best first.

        A request bound to a backend (`resource_backend`: clone, snapshot, group) keeps only
        that backend's pools, after weighing as Cinder does.
        :raises: NoValidBackend when the retry attempts are exhausted.
        """
        request = self.prepare(request_spec, filter_properties, context)
        # NOTE(perf): among thousands of pools the view's index visits the best few.
        indexed = self._indexed(pools, request)
        if indexed is not None:
            return indexed
        weighed = weigh_base.weigh(self.weighers, self.filter_pools(pools, request), request)
        bound = request_spec.get('resource_backend')
        if bound:
            weighed = [w for w in weighed if _backend_of(w.obj.backend_id) == bound]
        return weighed

    def backend_passes_filters(self, pools, backend, request_spec, filter_properties=None,
                               context=None):
        """The pool for *backend* if it passes (pool level when *backend* names a pool).

        :raises: NoValidBackend('Cannot place <resource> <id> on <backend>.')
        """
        weighed = self.weighed_candidates(pools, request_spec, filter_properties, context)
        ignore_pool = '#' not in backend
        for candidate in weighed:
            backend_id = candidate.obj.backend_id
            if (_backend_of(backend_id) if ignore_pool else backend_id) == backend:
                return candidate.obj
        resource, resource_id = 'volume', '??id missing??'
        for kind in ('volume', 'group', 'snapshot'):
            if request_spec.get(f'{kind}_id'):
                resource, resource_id = kind, request_spec[f'{kind}_id']
                break
        raise exception.NoValidBackend(f'Cannot place {resource} {resource_id} on {backend}.')

    def find_retype_backend(self, pools, request_spec, filter_properties=None, context=None,
                            migration_policy='never'):
        """The pool a volume should have with its new type (Cinder's find_retype_backend):
        its own when it passes (its size not counted again there), else with policy
        `on-demand` the best other one.

        :raises: NoValidBackend
        """
        filter_properties = dict(filter_properties or {})
        volume = request_spec['volume_properties']
        backend = volume.get('cluster_name') or volume['host']
        filter_properties['vol_exists_on'] = backend
        weighed = self.weighed_candidates(pools, request_spec, filter_properties, context)
        if not weighed:
            raise exception.NoValidBackend(
                reason=f"No valid backends for volume {request_spec['volume_id']} with type "
                       f"{request_spec['volume_type']}")
        for candidate in weighed:
            if candidate.obj.backend_id == backend:
                return candidate.obj
        if '#' not in backend:
            # NOTE(legacy): a volume without pool may move between pools of its backend.
            for candidate in weighed:
                if _backend_of(candidate.obj.backend_id) == backend:
                    return candidate.obj
        if migration_policy == 'never':
            raise exception.NoValidBackend(
                reason=f"Current backend not valid for volume {request_spec['volume_id']} "
                       f"with type {request_spec['volume_type']}, migration not allowed")
        return weighed[0].obj
