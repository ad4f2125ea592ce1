"""Weighers and OrderedHostWeightHandler: raw weights, normalisation, multipliers, order."""

import math

import pytest

from cinderlike import exception
from cinderlike.scheduler import weighers
from cinderlike.scheduler.weighers import base
from cinderlike.scheduler.weighers.capacity import AllocatedCapacityWeigher, CapacityWeigher
from cinderlike.scheduler.weighers.chance import ChanceWeigher
from cinderlike.scheduler.weighers.goodness import GoodnessWeigher, goodness_rating
from cinderlike.scheduler.weighers.volume_number import VolumeNumberWeigher
from tests.unit.scheduler.pools import pool, request


def _names(weighed):
    return [w.obj.host for w in weighed]


@pytest.mark.parametrize('values, expected', [
    ([1, 2, 3], [0.0, 0.5, 1.0]), ([5, 5], [0.0, 0.0]), ([-1, 1], [0.0, 1.0]),
])
def test_normalize(values, expected):
    assert base.normalize(values, min(values), max(values)) == expected


def test_capacity_weigher_spreads_by_virtual_free_capacity():
    pools = [pool(host='a@x', free_capacity_gb=10), pool(host='b@x', free_capacity_gb=90),
             pool(host='c@x', free_capacity_gb=50)]
    weighed = base.weigh([CapacityWeigher(1.0)], pools, request())
    assert _names(weighed) == ['b@x', 'c@x', 'a@x']
    assert [w.weight for w in weighed] == [1.0, 0.5, 0.0]


def test_capacity_weigher_thin_uses_ratio_and_provisioned():
    thin = pool(host='thin@x', free_capacity_gb=10, thin_provisioning_support=True,
                max_over_subscription_ratio='3.0', allocated_capacity_gb=100)
    thick = pool(host='thick@x', free_capacity_gb=90)
    assert _names(base.weigh([CapacityWeigher(1.0)], [thick, thin], request())) == [
        'thin@x', 'thick@x']                               # 200 virtual vs 90
    thick_req = request(extra_specs={'provisioning:type': 'thick'})
    assert CapacityWeigher(1.0).weights([thin], thick_req) == [-0.0]  # min(100 - 100, 10)


def test_unlimited_capacity_is_last_when_spreading_and_first_when_stacking():
    pools = [pool(host='inf@x', free_capacity_gb='infinite'),
             pool(host='a@x', free_capacity_gb=10), pool(host='b@x', free_capacity_gb=30)]
    assert _names(base.weigh([CapacityWeigher(1.0)], pools, request())) == [
        'b@x', 'a@x', 'inf@x']
    raw = CapacityWeigher(-1.0).weights(pools, request())
    assert raw == [30 + 20 * 100, 10, 30] and not any(math.isinf(w) for w in raw)
    assert _names(base.weigh([CapacityWeigher(-1.0)], pools, request())) == [
        'a@x', 'b@x', 'inf@x']
    same = [pool(host='inf@x', free_capacity_gb='unknown'), pool(host='a@x')]
    assert CapacityWeigher(-1.0).weights(same, request()) == [100 + 10000, 100]


def test_allocated_capacity_weigher_prefers_the_least_allocated():
    pools = [pool(host='a@x', allocated_capacity_gb=50), pool(host='b@x', allocated_capacity_gb=5)]
    assert _names(base.weigh([AllocatedCapacityWeigher(-1.0)], pools, request())) == [
        'b@x', 'a@x']


def test_volume_number_weigher_uses_one_batched_count():
    calls = []

    def counts(context, hosts):
        calls.append(list(hosts))
        return {'a@x#pool1': 7, 'b@x#pool1': 2}
    pools = [pool(host='a@x'), pool(host='b@x'), pool(host='c@x')]
    weighed = base.weigh([VolumeNumberWeigher(-1.0, counts)], pools, request())
    assert _names(weighed) == ['c@x', 'b@x', 'a@x'] and len(calls) == 1


@pytest.mark.parametrize('function, expected', [
    (None, 0), ('75', 75), ('volume.size * 10', 30), ('1 < 2', 100), ('1 > 2', 0),
    ('101', 0), ('-1', 0), ('stats.nope', 0), ('1 +', 0), ('"text"', 0),
    ('capabilities.utilization', 42),
])
def test_goodness_rating(function, expected):
    target = pool(goodness_function=function, utilization=42.5)
    assert goodness_rating(target, request(size=3)) == expected


def test_goodness_weigher_orders_by_rating():
    pools = [pool(host='a@x', goodness_function='20'), pool(host='b@x', goodness_function='80')]
    assert _names(base.weigh([GoodnessWeigher()], pools, request())) == ['b@x', 'a@x']


def test_chance_weigher_uses_the_injected_rng():
    values = iter([0.1, 0.9])
    pools = [pool(host='a@x'), pool(host='b@x')]
    assert _names(base.weigh([ChanceWeigher(1.0, lambda: next(values))], pools, request())) == [
        'b@x', 'a@x']


def test_multipliers_combine_normalised_weights():
    pools = [pool(host='a@x', free_capacity_gb=100, allocated_capacity_gb=0),
             pool(host='b@x', free_capacity_gb=50, allocated_capacity_gb=100)]
    loaded = weighers.load(['CapacityWeigher', 'AllocatedCapacityWeigher'],
                           multipliers={'capacity_weight_multiplier': 2.0,
                                        'allocated_capacity_weight_multiplier': 3.0})
    weighed = base.weigh(loaded, pools, request())
    assert [(w.obj.host, w.weight) for w in weighed] == [('b@x', 3.0), ('a@x', 2.0)]


def test_ties_keep_input_order_and_empty_is_empty():
    pools = [pool(host='a@x'), pool(host='b@x'), pool(host='c@x')]
    assert _names(base.weigh([CapacityWeigher(1.0)], pools, request())) == ['a@x', 'b@x', 'c@x']
    assert base.weigh([CapacityWeigher(1.0)], [], request()) == []


def test_load_rejects_unknown_names_and_missing_dependencies():
    with pytest.raises(exception.SchedulerHostWeigherNotFound):
        weighers.load(['CapacityWeigher', 'NopeWeigher'])
    with pytest.raises(ValueError):
        weighers.load(['VolumeNumberWeigher'])
    assert weighers.load(['GoodnessWeigher'])[0].multiplier == 1.0
