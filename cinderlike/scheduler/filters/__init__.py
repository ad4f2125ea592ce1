"""Scheduler filters by Cinder class name, as scheduler_default_filters lists them."""

from cinderlike import exception
from cinderlike.scheduler.filters import (
    affinity,
    availability_zone,
    capabilities,
    capacity,
    driver,
    json_filter,
    retry,
)

_SIMPLE = {cls.name: cls for cls in (
    availability_zone.AvailabilityZoneFilter, capacity.CapacityFilter,
    capabilities.CapabilitiesFilter, retry.RetryFilter, json_filter.JsonFilter,
    driver.DriverFilter)}
_NEEDS_LOCATIONS = {cls.name: cls for cls in (
    affinity.SameBackendFilter, affinity.DifferentBackendFilter)}
# Cinder's entry-point alias for the retry filter's class name.
_SIMPLE['IgnoreAttemptedHostsFilter'] = retry.RetryFilter

NAMES = frozenset(_SIMPLE) | frozenset(_NEEDS_LOCATIONS)


def load(names, *, volume_locations=None):
    """Instantiate the filters named in *names*, in order.

    *volume_locations(context, ids)* feeds Same/DifferentBackendFilter.
    :raises: SchedulerHostFilterNotFound for names that are not filters.
    """
    unknown = [name for name in names if name not in NAMES]
    if unknown:
        raise exception.SchedulerHostFilterNotFound(filter_name=', '.join(unknown))
    loaded = []
    for name in names:
        if name in _NEEDS_LOCATIONS:
            if volume_locations is None:
                raise ValueError(f'{name} needs a volume_locations callable')
            loaded.append(_NEEDS_LOCATIONS[name](volume_locations))
        else:
            loaded.append(_SIMPLE[name]())
    return loaded
