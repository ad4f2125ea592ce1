"""One placement request, read once from Cinder's request_spec/filter_properties dicts.

Filters and weighers look at this object instead of digging through the dicts per pool.
"""

import dataclasses

from cinderlike import capacity


@dataclasses.dataclass(slots=True)
class PlacementRequest:
    """What every filter and weigher needs to know about the request being placed."""

    request_spec: dict
    filter_properties: dict
    context: object = None
    volume_type: dict = dataclasses.field(default_factory=dict)
    extra_specs: dict = dataclasses.field(default_factory=dict)
    qos_specs: dict = dataclasses.field(default_factory=dict)
    volume_properties: dict = dataclasses.field(default_factory=dict)
    scheduler_hints: dict = dataclasses.field(default_factory=dict)
    requested_gb: float = 0
    thin: bool = True

    @classmethod
    def build(cls, request_spec, filter_properties, context=None):
        """Derive the per-request values once (requested size, thin or thick, hints)."""
        volume_type = filter_properties.get('volume_type') or {}
        if 'new_size' in filter_properties and filter_properties.get('new_size'):
            # NOTE(capacity): extend asks only for the difference, as Cinder's CapacityFilter.
            requested = (int(filter_properties['new_size']) -
                         int(filter_properties.get('size') or 0))
        else:
            requested = filter_properties.get('size') or 0
        extra_specs = volume_type.get('extra_specs') or {}
        return cls(
            request_spec=request_spec, filter_properties=filter_properties, context=context,
            volume_type=volume_type, extra_specs=extra_specs,
            qos_specs=filter_properties.get('qos_specs') or {},
            volume_properties=(request_spec.get('volume_properties') or
                               request_spec.get('resource_properties') or {}),
            scheduler_hints=filter_properties.get('scheduler_hints') or {},
            requested_gb=requested, thin=capacity.thin_requested(extra_specs))

    def namespaces(self, pool, stats=None) -> dict:
        """The variables a filter/goodness function may use, for one pool."""
        return {'stats': stats if stats is not None else pool.stats(),
                'capabilities': pool.capabilities, 'volume': self.volume_properties,
                'qos': self.qos_specs, 'extra': self.extra_specs}
