"""AvailabilityZoneFilter: the type's zones, else the volume's zone, else anything."""

import pytest

from cinderlike.scheduler.filters.availability_zone import AvailabilityZoneFilter
from tests.unit.scheduler.pools import passing, pool, request

POOLS = [pool(host='a@b', az='az1'), pool(host='c@d', az='az2')]


@pytest.mark.parametrize('spec, expected', [
    ({}, ['az1', 'az2']),
    ({'volume_properties': {'availability_zone': 'az2'}}, ['az2']),
    ({'resource_properties': {'availability_zone': 'az1'}}, ['az1']),
    ({'availability_zones': ['az2', 'az3'],
      'volume_properties': {'availability_zone': 'az1'}}, ['az2']),
    ({'volume_properties': {'availability_zone': 'az9'}}, []),
])
def test_zones(spec, expected):
    got = passing(AvailabilityZoneFilter(), POOLS, request(request_spec=spec))
    assert [p.availability_zone for p in got] == expected
