"""Capacity math: limits, virtual free capacity, 'auto' ratio and the filter's decision."""

import pytest

from cinderlike import capacity


@pytest.mark.parametrize('total, reserved, thin, ratio, free, expected', [
    (100, 0, False, 20.0, None, 100),
    (100, 10, False, 20.0, None, 90),
    (100, 10, True, 2.0, None, 180),
    (101, 15, True, 1.5, None, (101 - 15) * 1.5),   # floor(15.15) = 15
    (100.5, 50, False, 1.0, None, 100.5 - 50),      # floor(50.25) = 50
    ('infinite', 0, True, 2.0, None, None),
    ('unknown', 5, False, 1.0, None, None),
    (100, 0, False, 1.0, 'infinite', None),
    (100, 0, True, 2.0, 'unknown', None),
    (None, 0, False, 1.0, None, None),
])
def test_capacity_limit_gb(total, reserved, thin, ratio, free, expected):
    assert capacity.capacity_limit_gb(total, reserved, thin, ratio, free=free) == expected


@pytest.mark.parametrize('value, thin_support, total, free, provisioned, expected', [
    ('2.5', True, 100, 50, 10, 2.5),
    (3, True, 100, 50, 10, 3.0),
    (None, True, 100, 50, 10, 20.0),                 # the default
    ('auto', True, 100, 40, 120, 1 + 120 / 61),      # 1 + provisioned / (used + 1)
    ('auto', True, 100, 40, 0, 20.0),                # nothing provisioned yet
    ('auto', False, 100, 40, 120, 1.0),              # no thin support: unused
    ('5.0', True, 'infinite', 40, 120, 1.0),
    ('5.0', True, 100, 'unknown', 120, 1.0),
])
def test_max_over_subscription_ratio(value, thin_support, total, free, provisioned, expected):
    assert capacity.max_over_subscription_ratio(
        value, thin_support=thin_support, total=total, free=free,
        provisioned=provisioned) == pytest.approx(expected)


def test_thin_requested_follows_provisioning_type():
    assert capacity.thin_requested({})
    assert capacity.thin_requested(None)
    assert capacity.thin_requested({'provisioning:type': 'thin'})
    assert not capacity.thin_requested({'provisioning:type': 'thick'})


_BASE = dict(total=100, free=100, provisioned=0, reserved_percentage=0, thin_support=False,
             ratio=1.0, thin=True, requested=10)


@pytest.mark.parametrize('changes, expected', [
    ({}, True),
    ({'requested': 0, 'free': 0}, True),                        # manage: nothing allocated
    ({'free': None}, False),                                     # fail safe
    ({'free': 'infinite', 'total': 0}, True),
    ({'free': 'unknown'}, True),
    ({'total': 'infinite'}, True),
    ({'total': 'unknown', 'reserved_percentage': 5}, False),    # reserve cannot be computed
    ({'total': 0}, False),
    ({'total': -1}, False),
    # thick: min(total - reserved - provisioned, reported free) >= requested
    ({'free': 9}, False),
    ({'free': 10}, True),
    ({'provisioned': 91}, False),
    ({'provisioned': 90}, True),
    ({'reserved_percentage': 10, 'provisioned': 80}, True),
    ({'reserved_percentage': 10, 'provisioned': 81}, False),
    ({'free': 9.996}, True),                                     # Cinder rounds to 2 places
    ({'free': 9.994}, False),
    # thin: (total - reserved) * ratio - provisioned >= requested, free is not used
    ({'thin_support': True, 'ratio': 2.0, 'free': 1, 'provisioned': 190}, True),
    ({'thin_support': True, 'ratio': 2.0, 'free': 1, 'provisioned': 191}, False),
    ({'thin_support': True, 'ratio': 2.0, 'reserved_percentage': 10, 'provisioned': 170},
     True),
    ({'thin_support': True, 'ratio': 2.0, 'reserved_percentage': 10, 'provisioned': 171},
     False),
    ({'thin_support': True, 'ratio': 0.5}, False),               # invalid ratio
    ({'thin_support': True, 'ratio': 2.0, 'reserved_percentage': 100}, False),
    # a thick type on a thin pool uses the thick math
    ({'thin_support': True, 'ratio': 2.0, 'thin': False, 'provisioned': 95}, False),
    ({'thin_support': True, 'ratio': 2.0, 'thin': False, 'provisioned': 90}, True),
])
def test_backend_has_room(changes, expected):
    assert capacity.backend_has_room(**dict(_BASE, **changes)) is expected


@pytest.mark.parametrize('total, reserved, thin, ratio, provisioned', [
    (100, 0, False, 1.0, 0), (100, 10, False, 1.0, 37), (100, 10, True, 2.0, 100),
    (250, 7, True, 3.5, 400), (1000, 0, True, 20.0, 0),
])
def test_filter_and_claim_agree_on_the_last_gb(total, reserved, thin, ratio, provisioned):
    limit = capacity.capacity_limit_gb(total, reserved, thin, ratio)
    room = limit - provisioned
    kwargs = dict(total=total, free=total, provisioned=provisioned,
                  reserved_percentage=reserved, thin_support=thin, ratio=ratio, thin=thin)
    assert capacity.backend_has_room(requested=room, **kwargs)
    assert not capacity.backend_has_room(requested=room + 1, **kwargs)
    assert provisioned + room <= limit < provisioned + room + 1


def test_virtual_free_thin_and_thick():
    fixed = capacity.PoolCapacity(total=100, free=30, reserved_percentage=10,
                                  thin_support=True, ratio=2.0)
    assert fixed.virtual_free(50, 30, True) == 130
    assert fixed.virtual_free(50, 30, False) == 30       # reported free is smaller
    assert fixed.virtual_free(80, 30, False) == 10       # 90 - 80
    assert capacity.PoolCapacity(total=100, free=None, reserved_percentage=0,
                                 thin_support=False, ratio=1.0).virtual_free(0, None, True) == -1
