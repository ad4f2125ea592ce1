"""db/pools.py on SQLite: claims against the ceiling, report ordering, release, drift."""

import datetime

import pytest

from cinderlike.db import pools as db_pools
from cinderlike.db import volumes as db_volumes
from tests.unit.scheduler import placing

T0 = placing.T0
LATER = T0 + datetime.timedelta(seconds=60)


def _pool(db, name='n1@lvm#pool1'):
    row, = db_pools.get_all(db, names=[name])
    return row


def test_a_report_creates_the_row_with_its_ceiling_and_nothing_claimed(db):
    placing.record(db, 'n1@lvm', placing.capabilities(total=100, reserved=10))
    row = _pool(db)
    assert (row.capacity_limit_gb, row.allocated_capacity_gb, row.report_seq) == (90, 0, 1)
    placing.record(db, 'n2@lvm', placing.capabilities(total=100, thin=True, ratio='2.0'))
    assert _pool(db, 'n2@lvm#pool1').capacity_limit_gb == 200


def test_unlimited_pools_have_no_ceiling(db):
    placing.record(db, 'n1@lvm', placing.capabilities(total='infinite', free='infinite'))
    assert _pool(db).capacity_limit_gb is None
    assert all(db_pools.claim(db, pool='n1@lvm#pool1', size_gb=10 ** 6) for _ in range(3))


def test_claims_stop_at_the_ceiling_and_release_gives_back(db):
    placing.record(db, 'n1@lvm', placing.capabilities(total=100))
    results = [db_pools.claim(db, pool='n1@lvm#pool1', size_gb=30) for _ in range(4)]
    assert results == [True, True, True, False]
    assert db_pools.claim(db, pool='n1@lvm#pool1', size_gb=10)
    assert not db_pools.claim(db, pool='n1@lvm#pool1', size_gb=1)
    assert db_pools.release(db, pool='n1@lvm#pool1', size_gb=30)
    assert db_pools.claims(db) == {'n1@lvm#pool1': (70, 70)}
    assert not db_pools.release(db, pool=None, size_gb=10)
    assert not db_pools.claim(db, pool='nowhere#pool', size_gb=1)


def test_a_lower_ceiling_for_one_claim(db):
    placing.record(db, 'n1@lvm', placing.capabilities(total=100, thin=True, ratio='2.0'))
    assert not db_pools.claim(db, pool='n1@lvm#pool1', size_gb=150, max_gb=100)
    assert db_pools.claim(db, pool='n1@lvm#pool1', size_gb=150)


def test_an_older_report_never_overwrites_newer_limits_nor_the_claim(db):
    placing.record(db, 'n1@lvm', placing.capabilities(total=100), seq=5)
    assert db_pools.claim(db, pool='n1@lvm#pool1', size_gb=40)
    # gathered before, delivered after (and stamped by a clock that jumped ahead)
    assert placing.record(db, 'n1@lvm', placing.capabilities(total=500), seq=4, at=LATER) == 0
    row = _pool(db)
    assert (row.capacity_limit_gb, row.allocated_capacity_gb, row.report_seq) == (100, 40, 5)
    assert placing.record(db, 'n1@lvm', placing.capabilities(total=200), seq=6) == 1
    row = _pool(db)
    assert (row.capacity_limit_gb, row.allocated_capacity_gb) == (200, 40)


def test_cluster_members_take_turns_by_time(db):
    caps = placing.capabilities(total=100)
    placing.record(db, 'a@lvm', caps, seq=900, at=T0, cluster_name='c@lvm')
    assert placing.record(db, 'b@lvm', placing.capabilities(total=300), seq=1, at=LATER,
                          cluster_name='c@lvm') == 1
    assert _pool(db, 'c@lvm#pool1').capacity_limit_gb == 300
    assert placing.record(db, 'a@lvm', caps, seq=901, at=T0, cluster_name='c@lvm') == 0


@pytest.mark.parametrize('kwargs, expected', [
    (dict(seq=2, reporter='a', gathered_at=T0), True),
    (dict(seq=1, reporter='a', gathered_at=LATER), False),
    (dict(seq=1, reporter='b', gathered_at=LATER), True),
    (dict(seq=9, reporter='b', gathered_at=T0), False),
])
def test_one_ordering_rule(kwargs, expected):
    held = dict(held_seq=1, held_reporter='a', held_at=T0)
    assert db_pools.supersedes(**kwargs, **held) is expected
    assert db_pools.supersedes(**kwargs, held_seq=None, held_reporter=None, held_at=None)


def test_drift_compares_claims_with_live_volumes_and_fix_repairs(db):
    placing.record(db, 'n1@lvm', placing.capabilities(total=100))
    placing.record(db, 'n2@lvm', placing.capabilities(total=100))
    for size in (10, 20):
        placing.add_volume(db, size=size, status='available', host='n1@lvm#pool1')
        db_pools.claim(db, pool='n1@lvm#pool1', size_gb=size)
    assert db_pools.drift(db) == []
    db_pools.claim(db, pool='n2@lvm#pool1', size_gb=7)        # a leaked claim
    db_pools.release(db, pool='n1@lvm#pool1', size_gb=10)    # a double release
    found = db_pools.drift(db)
    assert [(d.pool, d.claimed_gb, d.volumes_gb, d.drift_gb) for d in found] == [
        ('n1@lvm#pool1', 20, 30, -10), ('n2@lvm#pool1', 7, 0, 7)]
    assert db_pools.fix_drift(db) == found
    assert db_pools.drift(db) == []
    assert db_pools.claims(db) == {'n1@lvm#pool1': (30, 30), 'n2@lvm#pool1': (0, 0)}


def test_fix_leaves_a_pool_with_an_extend_in_flight(db):
    placing.record(db, 'n1@lvm', placing.capabilities(total=100))
    placing.add_volume(db, size=10, status='extending', host='n1@lvm#pool1')
    db_pools.claim(db, pool='n1@lvm#pool1', size_gb=30)      # 10 + the extend's 20
    assert db_pools.fix_drift(db) == []
    assert db_pools.claims(db)['n1@lvm#pool1'] == (30, 30)


def test_an_error_volume_that_never_launched_holds_no_claim(db):
    placing.record(db, 'n1@lvm', placing.capabilities(total=100))
    placing.add_volume(db, size=10, status='creating', host='n1@lvm#pool1')
    placing.add_volume(db, size=5, status='available', host='n1@lvm#pool1')
    failed = placing.add_volume(db, size=20, status='creating', host='n1@lvm#pool1')
    db_pools.claim(db, pool='n1@lvm#pool1', size_gb=15)
    db_volumes.update(db, volume_id=failed, values={'status': 'error'})
    assert db_pools.drift(db) == []
