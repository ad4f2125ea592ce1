"""CapacityFilter: a pool passes when it has room for the requested GB (thin or thick math).

The math is capacity.PoolCapacity's, precomputed per pool from its claims (PoolState.fit_*).
"""

from cinderlike.scheduler.filters import base


class CapacityFilter(base.BatchFilter):
    name = 'CapacityFilter'

    def select(self, pools, request):
        requested = request.requested_gb
        if requested == 0:
            return None  # a manage request allocates nothing
        # Retype: the volume already sits on this backend, do not count it twice.
        exists_on = request.filter_properties.get('vol_exists_on')
        if not request.thin:
            return [p for p in pools if requested <= p.fit_thick or
                    (exists_on is not None and p.backend_id == exists_on)]
        # A thin pool also keeps (provisioned + requested) / ratio_base within its ratio.
        return [p for p in pools if (
            requested <= p.fit_thin and
            ((base_gb := p.ratio_base) is None or
             (p.provisioned_capacity_gb + requested) / base_gb <=
             p.max_over_subscription_ratio)) or
            (exists_on is not None and p.backend_id == exists_on)]
