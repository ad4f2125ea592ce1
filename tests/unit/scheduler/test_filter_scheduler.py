"""FilterScheduler: the ordered candidate list, retries, bound backends, backend_passes."""

import pytest

from cinderlike import conf as conf_mod
from cinderlike import exception
from cinderlike.scheduler.filter_scheduler import FilterScheduler
from tests.unit.scheduler.pools import pool


def _pools():
    return [pool(host='a@lvm', free_capacity_gb=30, az='nova'),
            pool(host='b@lvm', free_capacity_gb=90, az='nova'),
            pool(host='c@nfs', free_capacity_gb=60, az='nova', volume_backend_name='nfs'),
            pool(host='d@lvm', free_capacity_gb=100, az='other')]


def _spec(size=10, specs=None, **props):
    return {'volume_id': 'vol-1', 'volume_type': {'extra_specs': specs or {}},
            'volume_properties': dict({'size': size, 'availability_zone': 'nova'}, **props)}


def _hosts(weighed):
    return [w.obj.host for w in weighed]


def test_default_pipeline_returns_every_candidate_best_first():
    weighed = FilterScheduler().weighed_candidates(_pools(), _spec(size=40))
    assert _hosts(weighed) == ['b@lvm', 'c@nfs']         # a is too small, d in another AZ
    assert weighed[0].weight >= weighed[1].weight


def test_filter_properties_are_filled_like_cinder():
    fp = {}
    FilterScheduler().weighed_candidates(_pools(), _spec(size=5, user_id='u'), fp)
    assert fp['size'] == 5 and fp['user_id'] == 'u' and fp['availability_zone'] == 'nova'
    assert fp['retry'] == {'num_attempts': 1, 'backends': [], 'hosts': []}
    assert 'context' not in fp                           # stays JSON-safe for the cast


def test_type_selects_backend():
    weighed = FilterScheduler().weighed_candidates(
        _pools(), _spec(specs={'volume_backend_name': 'nfs'}))
    assert _hosts(weighed) == ['c@nfs']
    assert FilterScheduler().weighed_candidates(
        _pools(), _spec(specs={'volume_backend_name': 'ceph'})) == []


def test_multiattach_volume_needs_a_multiattach_backend():
    pools = _pools()
    pools[0].capabilities['multiattach'] = True
    spec = _spec(multiattach=True)
    assert _hosts(FilterScheduler().weighed_candidates(pools, spec)) == ['a@lvm']
    assert spec['volume_type'] == {'extra_specs': {}}    # the caller's type is not modified


def test_retry_counts_attempts_and_skips_tried_pools():
    scheduler = FilterScheduler(max_attempts=2)
    fp = {}
    first = scheduler.weighed_candidates(_pools(), _spec(), fp)
    scheduler.add_retry_backend(fp, first[0].obj.backend_id)
    second = scheduler.weighed_candidates(_pools(), _spec(), fp)
    assert fp['retry']['num_attempts'] == 2 and fp['retry']['backends'] == ['b@lvm#pool1']
    assert first[0].obj.host not in _hosts(second)
    fp['retry']['exc'] = 'Traceback: boom'
    with pytest.raises(exception.NoValidBackend, match='Exceeded max scheduling attempts 2'):
        scheduler.weighed_candidates(_pools(), _spec(), fp)


def test_single_attempt_disables_retry():
    fp = {'retry': {'num_attempts': 5, 'backends': ['b@lvm#pool1']}}
    FilterScheduler(max_attempts=1).weighed_candidates(_pools(), _spec(), fp)
    assert 'retry' not in fp
    with pytest.raises(exception.InvalidInput):
        FilterScheduler(max_attempts=0)


def test_resource_backend_keeps_only_that_backend():
    spec = dict(_spec(), resource_backend='a@lvm')
    assert _hosts(FilterScheduler().weighed_candidates(_pools(), spec)) == ['a@lvm']


@pytest.mark.parametrize('backend, expected', [
    ('a@lvm', 'a@lvm#pool1'), ('a@lvm#pool1', 'a@lvm#pool1'), ('a@lvm#other', None),
    ('d@lvm', None),
])
def test_backend_passes_filters(backend, expected):
    scheduler = FilterScheduler()
    if expected:
        assert scheduler.backend_passes_filters(_pools(), backend, _spec()).backend_id == expected
    else:
        with pytest.raises(exception.NoValidBackend, match='Cannot place volume vol-1 on'):
            scheduler.backend_passes_filters(_pools(), backend, _spec())


def test_extend_checks_the_difference_on_the_volume_backend():
    scheduler = FilterScheduler()
    fp = {'new_size': 35, 'size': 10}
    spec = {'volume_id': 'v', 'volume_type': {}, 'operation': 'extend_volume',
            'volume_properties': {'size': 10, 'attach_status': 'detached'}}
    assert scheduler.backend_passes_filters(_pools(), 'a@lvm', spec, fp).host == 'a@lvm'
    with pytest.raises(exception.NoValidBackend):
        scheduler.backend_passes_filters(_pools(), 'a@lvm', spec, {'new_size': 41, 'size': 10})


def test_from_conf_uses_cinder_option_names():
    conf = conf_mod.new_conf()
    conf([], project='cinderlike', default_config_files=[])
    conf.set_override('scheduler_default_filters', ['CapacityFilter', 'DriverFilter'])
    conf.set_override('scheduler_default_weighers', ['AllocatedCapacityWeigher'])
    conf.set_override('allocated_capacity_weight_multiplier', 2.0)
    scheduler = FilterScheduler.from_conf(conf)
    assert [f.name for f in scheduler.filters] == ['CapacityFilter', 'DriverFilter']
    assert [(w.name, w.multiplier) for w in scheduler.weighers] == [
        ('AllocatedCapacityWeigher', 2.0)]
    assert scheduler.max_attempts == 3


def test_unknown_filter_is_refused():
    with pytest.raises(exception.SchedulerHostFilterNotFound, match='NopeFilter'):
        FilterScheduler(filters=['CapacityFilter', 'NopeFilter'])
    with pytest.raises(ValueError):
        FilterScheduler(filters=['SameBackendFilter'])
