"""Capacity math shared by the scheduler (CapacityFilter, CapacityWeigher), the volume
service (the pool limits it records with each report) and the database claim.

Cinder's formulas (capacity_filter.py, sched_utils.calculate_capacity_factors), in one place so
that what the filter accepts and the ceiling the database claim enforces cannot drift apart.
"""

import math

INFINITE_UNKNOWN = ('infinite', 'unknown')
INITIAL_AUTO_RATIO = 20.0
# The one pool of a driver that reports no `pools` and no volume_backend_name.
DEFAULT_POOL_NAME = '_pool0'


def is_unlimited(value) -> bool:
    """True for the 'infinite'/'unknown' capacities some drivers report."""
    return isinstance(value, str) and value in INFINITE_UNKNOWN


def number(value):
    """Reports may carry numbers as strings; 'infinite'/'unknown'/None stay as they are."""
    if value is None or is_unlimited(value) or isinstance(value, (int, float)):
        return value
    return float(value)


def report_pools(report: dict) -> list[tuple[str, dict]]:
    """(pool name, pool report) of a capability report, as Cinder's HostManager expands it:
    each entry of its `pools` list, or for a driver without pools the report itself, named
    after volume_backend_name (or '_pool0'); an empty list has no pools."""
    pools = report.get('pools')
    if pools is None:
        return [(report.get('volume_backend_name') or DEFAULT_POOL_NAME, report)]
    if not isinstance(pools, list):
        return []
    return [(pool['pool_name'], pool) for pool in pools]


def reported_ratio(cap: dict, *, default='20.0') -> float:
    """The max over-subscription ratio of a pool report, 'auto' resolved."""
    allocated = number(cap.get('allocated_capacity_gb', 0)) or 0
    return max_over_subscription_ratio(
        cap.get('max_over_subscription_ratio'),
        thin_support=bool(cap.get('thin_provisioning_support', False)),
        total=number(cap.get('total_capacity_gb', 0)),
        free=number(cap.get('free_capacity_gb', 0)),
        provisioned=number(cap.get('provisioned_capacity_gb', allocated)), default=default)


def thin_requested(extra_specs) -> bool:
    """A volume is thin unless its type says `provisioning:type = thick` (Cinder's default)."""
    return (extra_specs or {}).get('provisioning:type') != 'thick'


def max_over_subscription_ratio(value, *, thin_support, total, free, provisioned,
                                default='20.0') -> float:
    """Resolve a pool's ratio, 'auto' included (sched_utils.calculate_max_over_subscription_ratio).

    'auto' is 1 + provisioned / (used + 1), or 20.0 while nothing is provisioned; a pool
    without thin support, or with infinite/unknown capacity, gets 1.0 (the ratio is unused).
    """
    if not thin_support or is_unlimited(total) or is_unlimited(free):
        return 1.0
    ratio = value or default
    if ratio == 'auto':
        if provisioned:
            used = float(total or 0) - float(free or 0)
            return 1 + float(provisioned) / (used + 1)
        return INITIAL_AUTO_RATIO
    return float(ratio)


def reserved_capacity_gb(total, reserved_percentage) -> float:
    """The part of *total* held back: floor(total × reserved_percentage / 100)."""
    return math.floor(float(total) * float(reserved_percentage or 0) / 100)


def capacity_limit_gb(total, reserved_percentage, thin, ratio, *, free=None) -> float | None:
    """Most GB that may be provisioned on a pool; None when the pool is not limited.

    thin → (total − reserved) × ratio; thick → total − reserved. *thin* is the effective
    choice (the type asks for thin and the pool supports it). Infinite/unknown total or free
    capacity means no limit, as the CapacityFilter lets such pools through.
    NOTE(claims): the DB claim (`claimed + size <= limit`) and CapacityFilter both use this.
    """
    if total is None or is_unlimited(total) or is_unlimited(free):
        return None
    available = float(total) - reserved_capacity_gb(total, reserved_percentage)
    return available * float(ratio) if thin else available


def pool_limit_gb(*, total, free, reserved_percentage, thin_support, ratio,
                  thin: bool) -> float | None:
    """A pool's ceiling for a thin or thick request (thin only where the pool supports it)."""
    thin = thin and thin_support
    return capacity_limit_gb(total, reserved_percentage, thin, ratio if thin else 1.0,
                             free=free)


def virtual_free_gb(limit, free, provisioned, thin) -> float:
    """Cinder's virtual free capacity, rounded to 2 decimals as Cinder does.

    thin: limit − provisioned; thick: the smaller of limit − provisioned and the reported
    free capacity (Cinder does not take the reserve off the reported free here).
    """
    calculated = limit - provisioned
    if not thin and free < calculated:
        calculated = free
    return round(calculated, 2)


class PoolCapacity:
    """What a pool's report fixes for the capacity math, computed once per report.

    Provisioned and free capacity move between reports (placements, DB claims), so they are
    passed in at each check; total, reserve, thin support and ratio are not.
    """

    __slots__ = ('verdict', 'thin_support', 'ratio', 'limit_thin', 'limit_thick',
                 'available_thin', 'unlimited', 'ratio_base')

    def __init__(self, *, total, free, reserved_percentage, thin_support, ratio):
        self.thin_support, self.ratio = bool(thin_support), ratio
        self.unlimited = is_unlimited(total) or is_unlimited(free)
        self.limit_thin = self.limit_thick = self.available_thin = self.ratio_base = None
        # NOTE(capacity): the order of these verdicts is CapacityFilter's.
        if free is None:
            self.verdict = False  # fail safe: volume node info collection broken
        elif is_unlimited(free):
            self.verdict = True
        elif is_unlimited(total):
            self.verdict = not reserved_percentage
        elif total is None or float(total) <= 0:
            self.verdict = False
        else:
            self.verdict = None
        if total is not None and not is_unlimited(total) and not is_unlimited(free):
            self.limit_thick = capacity_limit_gb(total, reserved_percentage, False, 1.0)
            if self.thin_support:
                self.limit_thin = capacity_limit_gb(total, reserved_percentage, True, ratio)
                # Cinder divides by total_available_capacity rounded to 2 places.
                self.available_thin = round(self.limit_thin, 2)
                if self.verdict is None and ratio >= 1 and self.available_thin > 0:
                    self.ratio_base = self.available_thin

    def fit(self, provisioned, free, thin) -> float:
        """The largest request CapacityFilter lets through on room alone (±inf: any/none).

        A thin request on a thin pool must also keep (provisioned + requested) / ratio_base
        within the ratio (has_room). Depends on the claims, not on the request's size, so the
        scheduler computes it when the claims change rather than per placement.
        """
        if self.verdict is not None:
            return math.inf if self.verdict else -math.inf
        if thin and self.thin_support:
            # NOTE(capacity): an invalid ratio, or a pool whose whole capacity is reserved
            # (Cinder would divide by zero), has no room.
            if self.ratio_base is None:
                return -math.inf
            return round(self.limit_thin - provisioned, 2)
        calculated = self.limit_thick - provisioned
        return round(free if free < calculated else calculated, 2)

    def has_room(self, provisioned, free, requested, thin) -> bool:
        """CapacityFilter's decision for a request of *requested* GB."""
        if requested == 0:  # a manage request: nothing is allocated
            return True
        if requested > self.fit(provisioned, free, thin):
            return False
        if thin and self.ratio_base is not None:
            return (provisioned + requested) / self.ratio_base <= self.ratio
        return True

    def virtual_free(self, provisioned, free, thin) -> float:
        """CapacityWeigher's raw weight for a finite pool (see virtual_free_gb).

        A pool that reported no free capacity weighs -1, like an unknown one.
        """
        if self.limit_thick is None or free is None:
            return -1
        if thin and self.thin_support:
            return round(self.limit_thin - provisioned, 2)
        calculated = self.limit_thick - provisioned
        return round(free if free < calculated else calculated, 2)


def backend_has_room(*, total, free, provisioned, reserved_percentage, thin_support, ratio,
                     thin, requested) -> bool:
    """CapacityFilter's decision for one pool's reported numbers and a request."""
    fixed = PoolCapacity(total=total, free=free, reserved_percentage=reserved_percentage,
                         thin_support=thin_support, ratio=ratio)
    return fixed.has_room(provisioned, free, requested, thin)

