"""BackendState.from_report: pool expansion as Cinder's HostManager, derived pool values."""

import datetime

import pytest

from cinderlike.scheduler.backend_state import BackendState, protocol_variants

NOW = datetime.datetime(2026, 1, 1, 12, 0, 0)


def _report(**extra):
    return dict({'volume_backend_name': 'lvm', 'vendor_name': 'Open', 'driver_version': '2.0',
                 'storage_protocol': 'iSCSI', 'fancy': 'yes',
                 'filter_function': 'volume.size < 100', 'goodness_function': '50'}, **extra)


def test_report_with_pools_gives_one_state_per_pool_with_backend_info():
    report = _report(pools=[
        {'pool_name': 'a', 'total_capacity_gb': 500, 'free_capacity_gb': 230,
         'allocated_capacity_gb': 270, 'reserved_percentage': 5,
         'thin_provisioning_support': True, 'max_over_subscription_ratio': '4.0',
         'multiattach': True, 'vendor_name': 'Mine'},
        {'pool_name': 'b', 'total_capacity_gb': '1024', 'free_capacity_gb': '1024',
         'goodness_function': '90'}])
    backend = BackendState.from_report('node1@lvm', report, availability_zone='az1',
                                       updated_at=NOW, seq=7)
    assert sorted(backend.pools) == ['a', 'b']
    a, b = backend.pools['a'], backend.pools['b']
    assert (a.backend_id, a.volume_host, a.volume_cluster_name) == (
        'node1@lvm#a', 'node1@lvm#a', None)
    assert (a.total_capacity_gb, a.free_capacity_gb, a.allocated_capacity_gb) == (500, 230, 270)
    assert a.provisioned_capacity_gb == 270                 # defaults to allocated
    assert a.max_over_subscription_ratio == 4.0 and a.thin_provisioning_support
    assert a.multiattach and a.reserved_percentage == 5
    assert a.availability_zone == 'az1' and (a.updated_at, a.seq) == (NOW, 7)
    assert a.capabilities['vendor_name'] == 'Mine'           # the pool's own value wins
    assert b.capabilities['vendor_name'] == 'Open'           # inherited from the backend
    assert a.capabilities['storage_protocol'] == ['iSCSI', 'iscsi']
    assert 'fancy' not in a.capabilities                     # pools see only their own report
    assert a.filter_function == 'volume.size < 100' and b.goodness_function == '90'
    assert a.goodness_expression.text == '50'
    assert (b.total_capacity_gb, b.free_capacity_gb) == (1024.0, 1024.0)
    assert b.max_over_subscription_ratio == 1.0              # no thin support
    assert 'pools' not in backend.capabilities and 'pools' in report


def test_report_without_pools_is_one_pool_named_after_the_backend():
    backend = BackendState.from_report(
        'node1@lvm', _report(total_capacity_gb=10, free_capacity_gb=4), cluster_name='c1')
    (pool,) = backend.pools.values()
    assert pool.pool_name == 'lvm' and pool.capabilities['fancy'] == 'yes'
    assert pool.backend_id == 'c1#lvm' and pool.volume_cluster_name == 'c1#lvm'
    assert pool.volume_host == 'node1@lvm#lvm' and backend.backend_id == 'c1'


def test_unnamed_backend_gets_the_default_pool_and_empty_pools_gives_none():
    backend = BackendState.from_report('node1@x', {'total_capacity_gb': 1})
    assert list(backend.pools) == ['_pool0']
    assert BackendState.from_report('node1@x', _report(pools=[])).pools == {}


def test_auto_ratio_and_broken_functions():
    backend = BackendState.from_report('n@b', _report(pools=[{
        'pool_name': 'p', 'total_capacity_gb': 100, 'free_capacity_gb': 40,
        'provisioned_capacity_gb': 122, 'thin_provisioning_support': True,
        'max_over_subscription_ratio': 'auto', 'filter_function': '1 +'}]))
    pool = backend.pools['p']
    assert pool.max_over_subscription_ratio == pytest.approx(1 + 122 / 61)
    assert isinstance(pool.filter_expression, Exception)
    assert pool.limit_gb(True) == pytest.approx(100 * (1 + 122 / 61))
    assert pool.limit_gb(False) == 100


def test_consume_counts_a_placement_until_the_next_report():
    backend = BackendState.from_report('n@b', _report(pools=[
        {'pool_name': 'p', 'total_capacity_gb': 100, 'free_capacity_gb': 50,
         'allocated_capacity_gb': 10},
        {'pool_name': 'q', 'total_capacity_gb': 'infinite', 'free_capacity_gb': 'infinite'}]))
    p, q = backend.pools['p'], backend.pools['q']
    p.consume(5, now=NOW)
    q.consume(5)
    assert (p.allocated_capacity_gb, p.provisioned_capacity_gb, p.free_capacity_gb) == (15, 15, 45)
    assert p.updated_at == NOW and q.free_capacity_gb == 'infinite'


def test_stats_namespace_and_protocol_variants():
    pool = BackendState.from_report('n@b', _report(total_capacity_gb=3)).pools['lvm']
    stats = pool.stats()
    assert stats['host'] == 'n@b#lvm' and stats['total_capacity_gb'] == 3
    assert stats['storage_protocol'] == 'iSCSI' and stats['vendor_name'] == 'Open'
    assert protocol_variants('fc') == ('FC', 'fibre_channel', 'fc')
    assert protocol_variants('ceph') == ('ceph',)
