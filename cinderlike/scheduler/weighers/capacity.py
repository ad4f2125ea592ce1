"""CapacityWeigher (spread by virtual free capacity) and AllocatedCapacityWeigher."""

import math

from cinderlike.scheduler.weighers import base

# Cinder's stand-in for infinite capacity when stacking (negative multiplier).
OFFSET_MIN = 10000
OFFSET_MULT = 100


class CapacityWeigher(base.BaseWeigher):
    """Virtual free capacity, the same formula as CapacityFilter's."""

    name = 'CapacityWeigher'

    def weights(self, pools, request):
        # NOTE(weigher): infinite/unknown sorts last when spreading (bug 1350638) and, when
        # stacking, becomes a finite value above every real one.
        unlimited = -1 if self.multiplier > 0 else math.inf
        # NOTE(perf): PoolState.weight_* is fixed_capacity.virtual_free for the current claims.
        if request.thin:
            raw = [pool.weight_thin for pool in pools]
        else:
            raw = [pool.weight_thick for pool in pools]
        if None in raw:
            raw = [unlimited if w is None else w for w in raw]
        if math.inf not in raw and -math.inf not in raw:
            return raw
        finite = [w for w in raw if not math.isinf(w)]
        if len(finite) == len(raw) or not finite:
            return raw
        high, low = max(finite), min(finite)
        offset = (high - low) * OFFSET_MULT
        stand_in = high + (OFFSET_MIN if offset == 0.0 else offset)
        return [stand_in if math.isinf(w) else w for w in raw]


class AllocatedCapacityWeigher(base.BaseWeigher):
    """Allocated capacity; the default multiplier −1 prefers the least allocated pool."""

    name = 'AllocatedCapacityWeigher'

    def weigh_one(self, pool, request):
        return pool.allocated_capacity_gb
