"""DriverFilter: each pool's filter_function decides, errors fail the pool."""

import pytest

from cinderlike.scheduler.filters.driver import DriverFilter
from tests.unit.scheduler.pools import passing, pool, request


@pytest.mark.parametrize('function, size, expected', [
    (None, 10, True),
    ('volume.size < 20', 10, True),
    ('volume.size < 20', 30, False),
    ('stats.total_capacity_gb >= 100 and capabilities.tier == "gold"', 1, True),
    ('extra.speed == "fast"', 1, True),
    ('stats.storage_protocol == "iscsi"', 1, True),       # any protocol spelling
    ('stats.storage_protocol == "FC"', 1, False),
    ('stats.nope > 1', 1, False),                          # evaluation error
    ('1 +', 1, False),                                     # parse error
])
def test_filter_function(function, size, expected):
    target = pool(filter_function=function, tier='gold')
    req = request(size=size, extra_specs={'speed': 'fast'},
                  request_spec={'volume_properties': {'size': size}})
    assert bool(passing(DriverFilter(), [target], req)) is expected
