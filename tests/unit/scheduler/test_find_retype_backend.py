"""FilterScheduler.find_retype_backend: the volume's own pool first (its size not counted
twice), another only with migration_policy on-demand, Cinder's NoValidBackend texts."""

import pytest

from cinderlike import exception
from cinderlike.scheduler.filter_scheduler import FilterScheduler
from tests.unit.scheduler.pools import pool


def _pools():
    return [pool(host='a@lvm', free_capacity_gb=5, az='nova'),
            pool(host='b@lvm', free_capacity_gb=90, az='nova'),
            pool(host='c@nfs', free_capacity_gb=60, az='nova', volume_backend_name='nfs')]


def _spec(host, *, size=10, specs=None, name='gold'):
    return {'volume_id': 'vol-1',
            'volume_type': {'id': 't1', 'name': name, 'extra_specs': specs or {}},
            'volume_properties': {'size': size, 'availability_zone': 'nova', 'host': host,
                                  'cluster_name': None}}


def _find(host, policy='never', **spec):
    return FilterScheduler().find_retype_backend(_pools(), _spec(host, **spec), {},
                                                 migration_policy=policy)


def test_its_own_pool_is_kept_even_when_full_for_a_new_volume():
    # a has 5 GB free: a new 10 GB volume would not fit, the one already there does.
    assert _find('a@lvm#pool1').backend_id == 'a@lvm#pool1'


def test_a_pool_of_a_legacy_volume_without_pool_on_its_backend():
    assert _find('b@lvm').backend_id == 'b@lvm#pool1'


def test_never_refuses_a_move():
    with pytest.raises(exception.NoValidBackend, match='Current backend not valid for volume '
                                                       'vol-1 .* migration not allowed'):
        _find('b@lvm#pool1', specs={'volume_backend_name': 'nfs'})


def test_on_demand_picks_the_best_other_pool():
    found = _find('b@lvm#pool1', 'on-demand', specs={'volume_backend_name': 'nfs'})
    assert found.backend_id == 'c@nfs#pool1'


def test_nothing_passes():
    with pytest.raises(exception.NoValidBackend, match='No valid backends for volume vol-1'):
        _find('b@lvm#pool1', 'on-demand', specs={'volume_backend_name': 'ceph'})
