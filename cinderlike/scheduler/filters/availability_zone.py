"""AvailabilityZoneFilter: keep pools in the zone(s) the request asks for."""

from cinderlike.scheduler.filters import base


class AvailabilityZoneFilter(base.BaseFilter):
    name = 'AvailabilityZoneFilter'

    def prepare(self, request):
        # The type's RESKEY:availability_zones (or the volume's zone on retype) wins over the
        # zone of the volume itself.
        zones = request.request_spec.get('availability_zones')
        if zones:
            allowed = frozenset(zones)
            return lambda pool: pool.availability_zone in allowed
        props = (request.request_spec.get('resource_properties') or
                 request.volume_properties)
        zone = props.get('availability_zone')
        if zone:
            return lambda pool: pool.availability_zone == zone
        return None
