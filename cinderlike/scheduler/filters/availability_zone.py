"""AvailabilityZoneFilter: keep pools in the zone(s) the request asks for."""

from cinderlike.scheduler.filters import base


class AvailabilityZoneFilter(base.BatchFilter):
    name = 'AvailabilityZoneFilter'

    def select(self, pools, request):
        # The type's RESKEY:availability_zones (or the volume's zone on retype) wins over the
        # zone of the volume itself.
        zones = request.request_spec.get('availability_zones')
        if zones:
            allowed = frozenset(zones)
            return [pool for pool in pools if pool.availability_zone in allowed]
        props = (request.request_spec.get('resource_properties') or
                 request.volume_properties)
        zone = props.get('availability_zone')
        if zone:
            return [pool for pool in pools if pool.availability_zone == zone]
        return None
