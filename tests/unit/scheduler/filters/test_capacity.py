"""CapacityFilter over pools: thin/thick by type, extend by difference, retype, manage."""

import pytest

from cinderlike.scheduler.filters.capacity import CapacityFilter
from tests.unit.scheduler.pools import passing, pool, request

THIN = dict(thin_provisioning_support=True, max_over_subscription_ratio='2.0',
            free_capacity_gb=5, allocated_capacity_gb=150)


@pytest.mark.parametrize('caps, size, specs, expected', [
    ({}, 100, {}, True),
    ({}, 101, {}, False),
    ({'reserved_percentage': 10}, 91, {}, False),
    ({'reserved_percentage': 10}, 90, {}, True),
    (THIN, 50, {}, True),                                  # 200 - 150
    (THIN, 51, {}, False),
    (THIN, 5, {'provisioning:type': 'thick'}, False),      # thick: 100 - 150 provisioned
    (dict(THIN, allocated_capacity_gb=50), 6, {'provisioning:type': 'thick'}, False),
    (dict(THIN, allocated_capacity_gb=50), 5, {'provisioning:type': 'thick'}, True),
    ({'free_capacity_gb': 'infinite'}, 10 ** 6, {}, True),
    ({'total_capacity_gb': 'unknown', 'reserved_percentage': 1}, 1, {}, False),
    ({'free_capacity_gb': None}, 1, {}, False),
])
def test_capacity(caps, size, specs, expected):
    req = request(size=size, extra_specs=specs)
    assert bool(passing(CapacityFilter(), [pool(**caps)], req)) is expected


def test_extend_asks_for_the_difference_only():
    target = pool(allocated_capacity_gb=90, free_capacity_gb=10)
    assert passing(CapacityFilter(), [target], request(size=50, new_size=60)) == [target]
    assert passing(CapacityFilter(), [target], request(size=50, new_size=61)) == []


def test_retype_skips_the_current_backend_and_manage_skips_all():
    full = pool(free_capacity_gb=0)
    assert passing(CapacityFilter(), [full], request(size=5, vol_exists_on='node1@lvm#pool1'))
    assert CapacityFilter().prepare(request(size=0)) is None


def test_consumed_capacity_is_seen_by_the_next_request():
    target = pool(total_capacity_gb=20, free_capacity_gb=20)
    assert passing(CapacityFilter(), [target], request(size=15))
    target.consume(15)
    assert not passing(CapacityFilter(), [target], request(size=15))
