"""Freeze / thaw / failover_host's compare-and-swap on services and clusters rows
(db/replication.py), on PostgreSQL and MariaDB: concurrent freezes of one backend let exactly
one through, a cluster changes with all its members, and the refusals carry Cinder's text."""

import pytest
import sqlalchemy as sa

from cinderlike import exception
from cinderlike.db import clusters as db_clusters
from cinderlike.db import replication
from cinderlike.db import services as db_services
from cinderlike.db.models import Cluster, Service
from tests.fixtures.race import race, split


def _service(db, host, cluster=None):
    return db_services.register(db, host=host, binary='cinder-volume', topic='cinder-volume',
                                availability_zone='nova', cluster_name=cluster)


def _freeze(db, **where):
    return lambda: replication.change(db, field='frozen', expected=[False], value=True,
                                      host=where.get('host'),
                                      cluster_name=where.get('cluster'))


def test_concurrent_freezes_one_wins(fresh_db):
    row = _service(fresh_db, 'race@b1')
    winners, losers = split(race(*[_freeze(fresh_db, host='race@b1')] * 6))
    assert len(winners) == 1 and [s.id for s in winners[0]] == [row.id]
    assert len(losers) == 5
    assert all(isinstance(e, exception.InvalidInput) for e in losers)
    assert all("frozen in ['race@b1'] must be False to failover." in e.msg for e in losers)
    assert db_services.get(fresh_db, row.id).frozen is True
    assert replication.is_frozen(fresh_db, host='race@b1#pool', cluster_name=None)


def test_cluster_freezes_with_every_member_and_thaws(fresh_db):
    one, two = _service(fresh_db, 'n1@b', 'c@b'), _service(fresh_db, 'n2@b', 'c@b')
    db_clusters.ensure(fresh_db, name='c@b', binary='cinder-volume')
    winners, losers = split(race(_freeze(fresh_db, host='n1@b'),
                                 _freeze(fresh_db, cluster='c@b')))
    assert (len(winners), len(losers)) == (1, 1)
    with fresh_db.reader() as session:
        frozen = dict(session.execute(sa.select(Service.id, Service.frozen)).all())
        cluster = session.scalars(sa.select(Cluster)).one()
    assert frozen == {one.id: True, two.id: True} and cluster.frozen is True
    assert replication.is_frozen(fresh_db, host='n2@b', cluster_name='c@b#pool')
    replication.change(fresh_db, host=None, cluster_name='c@b', field='frozen',
                       expected=[True], value=False)
    assert not replication.is_frozen(fresh_db, host='n1@b', cluster_name='c@b')


def test_failover_of_a_non_replicating_backend_is_refused(fresh_db):
    row = _service(fresh_db, 'n1@b')
    with pytest.raises(exception.InvalidInput) as refused:
        replication.change(fresh_db, host='n1@b', cluster_name=None,
                           field='replication_status', expected=['enabled', 'failed-over'],
                           value='failing-over', down_time=60)
    assert refused.value.msg == (
        "Invalid input received: No service could be changed: replication_status in "
        "['n1@b'] must be ['enabled', 'failed-over'] and must be up to failover.")
    assert db_services.get(fresh_db, row.id).replication_status == 'not-capable'
    with pytest.raises(exception.ServiceNotFound) as missing:
        replication.change(fresh_db, host='nowhere', cluster_name=None, field='frozen',
                           expected=[False], value=True)
    assert missing.value.msg == 'No service found with host=nowhere'
