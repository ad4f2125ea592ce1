"""Same/DifferentBackendFilter: volume locations come from an injected lookup."""

import uuid

import pytest

from cinderlike.scheduler.filters.affinity import DifferentBackendFilter, SameBackendFilter
from tests.unit.scheduler.pools import passing, pool, request

V1, V2 = str(uuid.uuid4()), str(uuid.uuid4())
LOCATIONS = {V1: ('a@b#pool1', None), V2: ('c@d', None)}   # V2 is a legacy, pool-less host
POOLS = [pool(host='a@b'), pool(host='c@d'), pool(host='e@f')]


def _lookup(context, ids):
    return [LOCATIONS[i] for i in ids if i in LOCATIONS]


@pytest.mark.parametrize('cls, hint, expected', [
    (SameBackendFilter, V1, ['a@b']),
    (SameBackendFilter, [V1, V2], ['a@b', 'c@d']),
    (SameBackendFilter, [], ['a@b', 'c@d', 'e@f']),
    (SameBackendFilter, 'not-a-uuid', []),
    (SameBackendFilter, [V1, 'bad'], []),
    (DifferentBackendFilter, V1, ['c@d', 'e@f']),
    (DifferentBackendFilter, [V1, V2], ['e@f']),
    (DifferentBackendFilter, 42, []),
])
def test_hints(cls, hint, expected):
    key = 'same_host' if cls is SameBackendFilter else 'different_host'
    got = passing(cls(_lookup), POOLS, request(hints={key: hint}))
    assert [p.host for p in got] == expected


def test_no_hint_is_no_lookup():
    def fail(context, ids):
        raise AssertionError('looked up')
    assert SameBackendFilter(fail).prepare(request()) is None


def test_clustered_pools_compare_cluster_names():
    clustered = pool(host='x@y', cluster='cl@b')
    lookup = lambda context, ids: [(None, 'cl@b#pool1')]  # noqa: E731
    assert passing(SameBackendFilter(lookup), [clustered], request(hints={'same_host': V1}))
