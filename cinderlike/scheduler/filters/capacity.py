"""CapacityFilter: a pool passes when it has room for the requested GB (thin or thick math)."""

from cinderlike.scheduler.filters import base


class CapacityFilter(base.BaseFilter):
    name = 'CapacityFilter'

    def prepare(self, request):
        requested = request.requested_gb
        if requested == 0:
            return None  # a manage request allocates nothing
        thin = request.thin
        # Retype: the volume already sits on this backend, do not count it twice.
        exists_on = request.filter_properties.get('vol_exists_on')

        def passes(pool):
            return pool.fixed_capacity.has_room(
                pool.provisioned_capacity_gb, pool.free_capacity_gb, requested, thin)
        if exists_on is None:
            return passes
        return lambda pool: pool.backend_id == exists_on or passes(pool)
