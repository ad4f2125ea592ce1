"""Cluster rows on real PostgreSQL and MariaDB: members registering one cluster together make
one row, and a removed cluster's name can be used again."""

import uuid

from cinderlike.db import clusters, services
from tests.fixtures.race import race, split


def _register(db, cluster, host):
    """What a starting member does: its services row, then its cluster's row."""
    services.register(db, host=host, binary='cinder-volume', topic='cinder-volume',
                      availability_zone='nova', cluster_name=cluster)
    return clusters.ensure(db, name=cluster, binary='cinder-volume')


def test_members_starting_together_make_one_cluster(db):
    for _attempt in range(5):
        cluster = f'c-{uuid.uuid4().hex[:8]}@lvm'
        results = race(*[lambda n=n, c=cluster: _register(db, c, f'n{n}-{c}')
                         for n in range(8)])
        created, errors = split(results)
        assert errors == []
        assert sorted(created) == [False] * 7 + [True]
        found, = clusters.get_all(db, down_time=60, filters={'name': cluster})
        assert (found.num_hosts, found.num_down_hosts, found.is_up) == (8, 0, True)


def test_a_removed_cluster_name_is_free_again(db):
    cluster = f'c-{uuid.uuid4().hex[:8]}@lvm'
    _register(db, cluster, f'n1-{cluster}')
    assert clusters.remove(db, name=cluster, binary='cinder-volume', recursive=True) == 1
    results = race(*[lambda n=n: _register(db, cluster, f'n{n}-again-{cluster}')
                     for n in range(4)])
    assert sorted(results) == [False, False, False, True]
    assert clusters.get(db, name=cluster, down_time=60).num_hosts == 4
