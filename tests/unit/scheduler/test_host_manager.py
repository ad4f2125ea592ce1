"""scheduler/host_manager.py: which pools a scheduler may use, and the start-up wait."""

import datetime
import threading

import pytest

from cinderlike.db import clusters as db_clusters
from cinderlike.db import pools as db_pools
from cinderlike.db import services as db_services
from cinderlike.db.models import utcnow
from cinderlike.scheduler import host_manager
from tests.fixtures import daemons
from tests.fixtures.clock import Clock
from tests.unit.scheduler import placing


@pytest.fixture
def db():
    return daemons.make_db()


def _hm(db, clock=None, wait=5):
    conf = daemons.make_conf(scheduler_driver_init_wait_time=wait)
    return host_manager.HostManager(conf, db, **({'monotonic': clock} if clock else {}))


def _report(hm, host, *, seq=1, at=None, cluster_name=None, **caps):
    hm.update(host_manager.CapabilityReport(
        'volume', host, cluster_name, placing.capabilities(**caps), at or utcnow(), seq))


def _register(db, host, cluster_name=None, az='nova'):
    db_services.register(db, host=host, binary='cinder-volume', topic='cinder-volume',
                         availability_zone=az, cluster_name=cluster_name)


def test_pools_carry_the_database_claims_and_need_a_row(db):
    hm = _hm(db)
    for host in ('a@lvm', 'b@lvm'):
        _register(db, host, az='az1')
        _report(hm, host, total=100)
    placing.record(db, 'a@lvm', placing.capabilities(total=100))   # b's row never written
    db_pools.claim(db, pool='a@lvm#pool1', size_gb=30)
    pool, = hm.pools(fresh_claims=True)
    assert (pool.backend_id, pool.allocated_capacity_gb, pool.availability_zone) == (
        'a@lvm#pool1', 30, 'az1')


def test_a_cluster_is_one_backend_seen_through_its_newest_member(db):
    hm = _hm(db)
    t0 = datetime.datetime(2026, 1, 1)
    for host, at, total in (('a@lvm', t0, 100), ('b@lvm', t0 + datetime.timedelta(1), 300)):
        _register(db, host, cluster_name='c@lvm')
        _report(hm, host, at=at, cluster_name='c@lvm', total=total)
    placing.record(db, 'b@lvm', placing.capabilities(total=300), cluster_name='c@lvm')
    pool, = hm.pools()
    assert (pool.backend_id, pool.host, pool.total_capacity_gb) == ('c@lvm#pool1', 'b@lvm', 300)


def test_a_new_report_replaces_the_view(db):
    hm = _hm(db)
    _register(db, 'a@lvm')
    placing.record(db, 'a@lvm', placing.capabilities(total=100))
    _report(hm, 'a@lvm', total=100)
    assert hm.pools()[0].total_capacity_gb == 100
    assert hm.pools() is hm.pools()
    _report(hm, 'a@lvm', seq=2, total=150)
    assert hm.pools()[0].total_capacity_gb == 150
    _report(hm, 'a@lvm', seq=1, total=10)      # older: ignored
    assert hm.pools()[0].total_capacity_gb == 150


def test_wait_for_reports_returns_once_every_up_service_reported(db):
    hm = _hm(db)
    _register(db, 'a@lvm')
    _report(hm, 'a@lvm')
    hm.wait_for_reports()
    assert hm.get('volume', 'a@lvm').sequence == 1


def test_wait_for_reports_gives_up_after_the_init_wait_time(db):
    clock = Clock(0.0)
    hm = _hm(db, clock=clock, wait=5)
    _register(db, 'silent@lvm')
    clock.now = 6.0
    hm.wait_for_reports()       # returns at once: the wait time is over
    assert hm.pools() == []


def test_a_clustered_backend_is_disabled_by_its_cluster_row(db):
    clock = Clock(0.0)
    hm = _hm(db, clock)
    _register(db, 'a@lvm', cluster_name='c@lvm')
    _report(hm, 'a@lvm', cluster_name='c@lvm', total=100)
    db_services.set_disabled(db, host='a@lvm', binary='cinder-volume', disabled=True)
    assert [b.host for b in hm.backends()] == ['a@lvm']   # the service's own flag is moot
    db_clusters.ensure(db, name='c@lvm', binary='cinder-volume')
    cluster = db_clusters.get(db, name='c@lvm', down_time=60).cluster
    db_clusters.set_disabled(db, cluster_id=cluster.id, disabled=True, reason=None)
    clock.now += host_manager.SERVICES_TTL
    assert hm.backends() == []


def test_a_claim_is_not_counted_again_in_a_view_built_after_it(db):
    """A placement weighed on one view; its claim commits; another thread's get_pools reads
    the claims afresh (the claim among them) and builds the next view; only then does the
    placement count its claim. It must not be counted twice (get_pools once answered more
    than the pool held)."""
    hm = _hm(db)
    _register(db, 'a@lvm')
    placing.record(db, 'a@lvm', placing.capabilities(total=100))
    _report(hm, 'a@lvm', total=100)
    db_pools.claim(db, pool='a@lvm#pool1', size_gb=90)
    placed = {}

    def place():
        pool, = hm.pools()                                   # weighed at 90
        assert db_pools.claim(db, pool='a@lvm#pool1', size_gb=10)
        placed['pool'] = pool
    thread = threading.Thread(target=place)
    thread.start()
    thread.join()
    fresh, = hm.pools(fresh_claims=True)                     # get_pools: 100, the claim in it
    assert fresh.allocated_capacity_gb == 100

    counted = threading.Thread(target=hm.consumed, args=(placed['pool'], 10))
    counted.start()                                          # the placing thread, late
    counted.join()
    assert hm.pools()[0].allocated_capacity_gb == 100
    assert hm.pools(fresh_claims=True)[0].allocated_capacity_gb == 100


def test_a_claim_counts_in_the_view_it_was_weighed_in_until_the_next_read(db):
    hm = _hm(db)
    _register(db, 'a@lvm')
    placing.record(db, 'a@lvm', placing.capabilities(total=100))
    _report(hm, 'a@lvm', total=100)
    pool, = hm.pools()
    assert db_pools.claim(db, pool='a@lvm#pool1', size_gb=10)
    hm.consumed(pool, 10)
    assert hm.pools()[0].allocated_capacity_gb == 10          # not read again yet
    _report(hm, 'a@lvm', seq=2, total=100)                    # a rebuild from the held claims
    assert hm.pools()[0].allocated_capacity_gb == 10
