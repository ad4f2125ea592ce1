"""RetryFilter: pools already tried by this request are skipped."""

import pytest

from cinderlike.scheduler.filters import load
from cinderlike.scheduler.filters.retry import RetryFilter
from tests.unit.scheduler.pools import passing, pool, request

POOLS = [pool(host='a@b'), pool(host='c@d')]


@pytest.mark.parametrize('retry, expected', [
    (None, ['a@b#pool1', 'c@d#pool1']),
    ({'num_attempts': 1, 'backends': []}, ['a@b#pool1', 'c@d#pool1']),
    ({'num_attempts': 2, 'backends': ['a@b#pool1']}, ['c@d#pool1']),
    ({'num_attempts': 2, 'hosts': ['c@d#pool1']}, ['a@b#pool1']),
])
def test_attempted_backends_are_skipped(retry, expected):
    got = passing(RetryFilter(), POOLS, request(retry=retry))
    assert [p.backend_id for p in got] == expected


def test_cinder_alias_loads_the_same_filter():
    assert isinstance(load(['IgnoreAttemptedHostsFilter'])[0], RetryFilter)
