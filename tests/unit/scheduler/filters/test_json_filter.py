"""JsonFilter: Cinder's query language over pool attributes and capabilities."""

import json

import pytest

from cinderlike import exception
from cinderlike.scheduler.filters.json_filter import JsonFilter
from tests.unit.scheduler.pools import passing, pool, request

POOL = pool(free_capacity_gb=80, tier='gold')


@pytest.mark.parametrize('query, expected', [
    (['>=', '$free_capacity_gb', 50], True),
    (['<', '$free_capacity_gb', 50], False),
    (['=', '$capabilities.tier', 'gold'], True),
    (['=', '$capabilities.nope', 'gold'], False),          # unresolved terms are dropped
    (['in', '$capabilities.tier', 'silver', 'gold'], True),
    (['in', '$capabilities.tier', 'silver'], False),
    (['<=', '$total_capacity_gb', 100, 200], True),
    (['>', '$total_capacity_gb', 50, 150], False),
    (['not', ['=', '$capabilities.tier', 'gold']], False),
    (['or', ['=', 1, 2], ['=', 2, 2]], True),
    (['and', ['=', 1, 1], ['=', 2, 3]], False),
    (['and', ['>=', '$free_capacity_gb', 10], ['=', '$pool_name', 'pool1']], True),
    ([], True),
])
def test_query(query, expected):
    req = request(hints={'query': json.dumps(query)})
    assert bool(passing(JsonFilter(), [POOL], req)) is expected


def test_no_query_and_bad_query():
    assert JsonFilter().prepare(request()) is None
    with pytest.raises(exception.InvalidInput):
        JsonFilter().prepare(request(hints={'query': '[">=",'}))
