"""CapabilitiesFilter: scopes, nested keys, lists, missing capabilities, online extend."""

import pytest

from cinderlike.scheduler.filters.capabilities import CapabilitiesFilter
from tests.unit.scheduler.pools import passing, pool, request


def _pool(**caps):
    return pool(**dict({'tier': 'gold', 'iops': 5000, 'nested': {'raid': {'level': '10'}},
                        'dedup': True, 'online_extend_support': False}, **caps))


@pytest.mark.parametrize('specs, expected', [
    ({}, True),
    ({'tier': 'gold'}, True),
    ({'tier': 'silver'}, False),
    ({'capabilities:tier': 'gold'}, True),
    ({'capabilities:tier': 's!= gold'}, False),
    ({'vendor:tier': 'silver'}, True),                    # other scopes are ignored
    ({'capabilities:nested:raid:level': '10'}, True),
    ({'capabilities:nested:raid:level': '5'}, False),
    ({'capabilities:nested:raid:missing': '5'}, False),
    ({'capabilities:tier:deeper': 'x'}, False),           # not a dict on the way
    ({'absent': 'x'}, False),
    ({'iops': '>= 4000', 'dedup': '<is> True'}, True),
    ({'iops': '>= 4000', 'dedup': '<is> False'}, False),
    ({'volume_backend_name': 'lvm'}, True),
    ({'storage_protocol': 'iscsi'}, True),                # any reported spelling matches
    ({'storage_protocol': '<in> FC'}, False),
    ({'provisioning:type': 'thick'}, True),
])
def test_extra_specs(specs, expected):
    assert bool(passing(CapabilitiesFilter(), [_pool()], request(extra_specs=specs))) is expected


def test_no_specs_means_nothing_to_check():
    assert CapabilitiesFilter().prepare(request()) is None


@pytest.mark.parametrize('attach_status, online, expected', [
    ('attached', False, False), ('detached', False, True), ('attached', True, True),
])
def test_extend_of_attached_volume_needs_online_extend(attach_status, online, expected):
    req = request(request_spec={'operation': 'extend_volume',
                                'volume_properties': {'size': 1,
                                                      'attach_status': attach_status}})
    pools = [_pool(online_extend_support=online)]
    assert bool(passing(CapabilitiesFilter(), pools, req)) is expected


def test_verdict_is_cached_per_report_and_type():
    target = _pool()
    flt = CapabilitiesFilter()
    assert passing(flt, [target], request(extra_specs={'tier': 'gold'})) == [target]
    assert len(target.match_cache) == 1
    assert passing(flt, [target], request(extra_specs={'tier': 'silver'})) == []
    assert len(target.match_cache) == 2
