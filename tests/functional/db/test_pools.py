"""Capacity claims on real PostgreSQL and MariaDB: concurrent claims never pass the ceiling.

Threads released together by a barrier claim on one pool; the conditional UPDATE lets exactly
as many through as fit, whatever the interleaving.
"""

import random

import pytest

from cinderlike.db import clusters as db_clusters
from cinderlike.db import placements, replication
from cinderlike.db import pools as db_pools
from cinderlike.db import services as db_services
from cinderlike.db import volumes as db_volumes
from tests.fixtures import flaky_db
from tests.fixtures.race import race
from tests.unit.scheduler import placing

POOL = 'n1@lvm#pool1'


@pytest.fixture
def db(fresh_db):
    """A new database per test: every test here claims on the same pool name."""
    return fresh_db


@pytest.mark.parametrize('caps, expected', [
    (dict(total=100), 10),
    (dict(total=100, thin=True, ratio='2.0'), 20),
])
def test_thirty_concurrent_claims_of_10_gb(db, caps, expected):
    placing.record(db, 'n1@lvm', placing.capabilities(**caps))
    results = race(*[lambda: db_pools.claim(db, pool=POOL, size_gb=10)] * 30)
    assert results.count(True) == expected
    assert db_pools.claims(db)[POOL] == (expected * 10, expected * 10)


def test_thirty_concurrent_placements_of_10_gb_volumes(db):
    placing.record(db, 'n1@lvm', placing.capabilities(total=100))
    ids = [placing.add_volume(db, size=10) for _ in range(30)]
    results = race(*[
        lambda volume_id=volume_id: placements.place_volume(
            db, volume_id=volume_id, pool=POOL, size_gb=10, host=POOL, cluster_name=None)
        for volume_id in ids])
    assert results.count(placements.Placed.PLACED) == 10
    assert results.count(placements.Placed.FULL) == 20
    assert db_pools.drift(db) == []


@pytest.mark.parametrize('total', [100, 10], ids=['room-left', 'filled-by-it'])
def test_a_placement_whose_commit_answer_was_lost_is_placed_and_claimed_once(db, total):
    """The COMMIT went through and its answer was lost: the retry, whose claim finds the
    volume placed or the pool full, finds the volume placed at its own `scheduled_at`
    (microseconds kept by both servers); its own claim, if any, is rolled back."""
    placing.record(db, 'n1@lvm', placing.capabilities(total=total))
    volume_id = placing.add_volume(db, size=10)
    attempts = flaky_db.unreachable_for(db, 1, after_commit=True)
    try:
        placed = placements.place_volume(db, volume_id=volume_id, pool=POOL, size_gb=10,
                                         host=POOL, cluster_name=None)
    finally:
        flaky_db.reachable(db)
    assert (placed, len(attempts)) == (placements.Placed.PLACED, 2)
    assert db_volumes.get(db, volume_id=volume_id).host == POOL
    assert db_pools.claims(db)[POOL] == (10, 10)
    assert db_pools.drift(db) == []


def _delete(db, volume_id):
    """What the volume service does: destroy the row and release its claim in one go."""
    volume = db_volumes.get(db, volume_id=volume_id)
    with db.writer() as s:
        if db_volumes.destroy(db, volume_id=volume_id, session=s):
            db_pools.release(db, pool=volume.host, size_gb=volume.size, session=s)


def test_placements_and_deletes_racing_keep_claims_equal_to_volumes(db):
    placing.record(db, 'n1@lvm', placing.capabilities(total=200))
    rng = random.Random(7)
    placed = [placing.add_volume(db, size=rng.randint(1, 20), status='creating')
              for _ in range(10)]
    for volume_id in placed:
        size = db_volumes.get(db, volume_id=volume_id).size
        placements.place_volume(db, volume_id=volume_id, pool=POOL, size_gb=size, host=POOL,
                                cluster_name=None)
    new = [(placing.add_volume(db, size=s), s) for s in (rng.randint(1, 30) for _ in range(20))]
    calls = [lambda v=v: _delete(db, v) for v in placed]
    calls += [lambda v=v, s=s: placements.place_volume(db, volume_id=v, pool=POOL, size_gb=s,
                                                       host=POOL, cluster_name=None)
              for v, s in new]
    rng.shuffle(calls)
    failures = [r for r in race(*calls) if isinstance(r, Exception)]
    assert failures == []
    assert db_pools.drift(db) == []
    assert db_pools.claims(db)[POOL][0] <= 200


def test_a_delayed_report_never_undoes_a_claim(db):
    placing.record(db, 'n1@lvm', placing.capabilities(total=100), seq=2)
    assert db_pools.claim(db, pool=POOL, size_gb=60)
    # a report gathered before the claim, with the backend's old view, arrives now
    assert placing.record(db, 'n1@lvm', placing.capabilities(total=100, free=100),
                          seq=1) == 0
    placing.record(db, 'n1@lvm', placing.capabilities(total=100, free=100), seq=3)
    assert db_pools.claims(db)[POOL] == (60, 60)
    assert not db_pools.claim(db, pool=POOL, size_gb=50)


def test_concurrent_first_reports_create_one_row(db):
    caps = placing.capabilities(total=100)
    results = race(*[lambda h=h: placing.record(db, h, caps, cluster_name='c@lvm')
                         for h in ('a@lvm', 'b@lvm', 'c@lvm', 'd@lvm')])
    assert sum(results) >= 1
    assert [row.name for row in db_pools.get_all(db)] == ['c@lvm#pool1']


@pytest.mark.parametrize('cluster', [None, 'c1@lvm'])
def test_a_frozen_backend_takes_no_placement_and_no_claim(db, cluster):
    """The claim's UPDATE reads the freeze (the cluster row of a clustered backend, else the
    services row): FULL, nothing claimed, the volume still waiting; thawed, it is placed."""
    pool = f'{cluster or "n1@lvm"}#pool1'
    db_services.register(db, host='n1@lvm', binary='cinder-volume', topic='cinder-volume',
                         availability_zone='nova', cluster_name=cluster)
    if cluster:
        db_clusters.ensure(db, name=cluster, binary='cinder-volume')
    placing.record(db, 'n1@lvm', placing.capabilities(total=100), cluster_name=cluster)
    volume_id = placing.add_volume(db, size=10)
    freeze = dict(host=None if cluster else 'n1@lvm', cluster_name=cluster, field='frozen')
    replication.change(db, **freeze, expected=[False], value=True)

    def place():
        return placements.place_volume(db, volume_id=volume_id, pool=pool, size_gb=10,
                                       host='n1@lvm#pool1', cluster_name=cluster and pool)

    assert place() is placements.Placed.FULL
    assert db_pools.claims(db)[pool] == (0, 0)
    assert db_volumes.get(db, volume_id=volume_id).host is None
    replication.change(db, **freeze, expected=[True], value=False)
    assert place() is placements.Placed.PLACED
    assert db_pools.claims(db)[pool] == (10, 10)
    assert db_pools.drift(db) == []
