"""pool_index.py: the indexed ranking is the full scan's, over random pools and requests."""

import copy

from hypothesis import given, settings
from hypothesis import strategies as st

from cinderlike.scheduler import pool_index
from cinderlike.scheduler.filter_scheduler import FilterScheduler
from cinderlike.scheduler.host_manager import HostManager
from tests.fixtures import daemons
from tests.unit.scheduler.pools import pool

_POOL = st.fixed_dictionaries({
    # Few distinct values, so equal weights (ties broken by the view's order) are common.
    'total_capacity_gb': st.sampled_from([100, 200, 1000, 'infinite']),
    'free_capacity_gb': st.sampled_from([0, 10, 50, 100, 'unknown']),
    'allocated_capacity_gb': st.sampled_from([0, 40, 150]),
    'reserved_percentage': st.sampled_from([0, 5, 50]),
    'thin_provisioning_support': st.booleans(),
    'thick_provisioning_support': st.booleans(),
    'max_over_subscription_ratio': st.sampled_from(['1.0', '2.0', '20.0']),
    'storage_protocol': st.sampled_from(['iSCSI', 'FC']),
    'az': st.sampled_from(['nova', 'other']),
})

_REQUEST = st.fixed_dictionaries({
    'size': st.sampled_from([0, 1, 10, 60, 500]),
    'availability_zone': st.sampled_from([None, 'nova', 'other']),
    'extra_specs': st.sampled_from([
        {}, {'storage_protocol': 'iSCSI'}, {'capabilities:storage_protocol': '<in> FC'},
        {'provisioning:type': 'thick'}, {'provisioning:type': 'thin'},
        {'thin_provisioning_support': '<is> True', 'provisioning:type': 'thin'}]),
    'tried': st.lists(st.integers(min_value=0, max_value=40), max_size=4),
})


def _pools(reports):
    pools = []
    for i, report in enumerate(reports):
        caps = dict(report)
        pools.append(pool(host=f'h{i}@lvm', az=caps.pop('az'), **caps))
    return pools


def _spec(request):
    props = {'size': request['size'], 'availability_zone': request['availability_zone']}
    return {'volume_id': 'vol-1', 'volume_properties': props,
            'volume_type': {'extra_specs': request['extra_specs']}}


def _props(request):
    tried = [f'h{i}@lvm#pool1' for i in request['tried']]
    return {'retry': {'num_attempts': 1, 'backends': tried, 'hosts': list(tried)}}


def _both(scheduler, pools, view, request):
    """(indexed, full scan) candidates of *request*, as lists of (host, weight)."""
    spec, props = _spec(request), _props(request)
    indexed = scheduler.weighed_candidates(view, copy.deepcopy(spec), copy.deepcopy(props))
    full = scheduler.weighed_candidates(list(pools), copy.deepcopy(spec), copy.deepcopy(props))
    return ([(w.obj.host, w.weight) for w in indexed], [(w.obj.host, w.weight) for w in full])


@settings(max_examples=300, deadline=None)
@given(reports=st.lists(_POOL, min_size=1, max_size=40),
       requests=st.lists(_REQUEST, min_size=1, max_size=6))
def test_indexed_ranking_is_the_full_scans_through_claims(reports, requests):
    scheduler = FilterScheduler(max_attempts=5)
    pools = _pools(reports)
    view = pool_index.PoolView(pools)
    for request in requests:
        indexed, full = _both(scheduler, pools, view, request)
        assert indexed == full
        if full and request['size']:
            # The claim a placement makes on its first candidate moves that pool.
            chosen = next(p for p in pools if p.host == full[0][0])
            before = pool_index.raw_weights(chosen)
            chosen.consume(request['size'])
            view.built_index.moved(chosen, before)


def test_weights_that_normalise_to_one_total_keep_the_views_order():
    # (1 + 1e16) and (0 + 1e16) round to the same float: weigh() ties them, so the pool
    # earlier in the view (weight 0) comes first although its raw weight is lower.
    pools = [pool(host=f'h{i}@lvm') for i in range(3)]
    for p, weight in zip(pools, (0.0, 1.0, -1e16), strict=True):
        p.weight_thin = p.weight_thick = weight
    scheduler = FilterScheduler(filters=(), weighers=('CapacityWeigher',))
    spec = {'volume_properties': {'size': 1}}
    indexed = scheduler.weighed_candidates(pool_index.PoolView(pools), copy.deepcopy(spec))
    full = scheduler.weighed_candidates(list(pools), copy.deepcopy(spec))
    assert [w.obj.host for w in indexed] == [w.obj.host for w in full] == [
        'h0@lvm', 'h1@lvm', 'h2@lvm']
    assert list(indexed) == list(full)


def test_a_placement_reads_only_the_top_of_the_index():
    pools = [pool(host=f'h{i}@lvm', total_capacity_gb=10_000, free_capacity_gb=100 + i)
             for i in range(5000)]
    view = pool_index.PoolView(pools)
    read = []
    scheduler = FilterScheduler()
    select = scheduler.filter_pools

    def counting(part, request, quiet=False):
        read.append(len(part))
        return select(part, request, quiet=quiet)
    scheduler.filter_pools = counting
    best = scheduler.weighed_candidates(view, {'volume_properties': {'size': 1}})[0]
    assert best.obj.host == 'h4999@lvm'
    assert sum(read) <= 4 * pool_index.FIRST_RUN


def test_other_weighers_and_bound_requests_take_the_full_scan():
    pools = [pool(host='a@lvm', free_capacity_gb=30), pool(host='b@lvm', free_capacity_gb=90)]
    view = pool_index.PoolView(pools)
    stacking = FilterScheduler(multipliers={'capacity_weight_multiplier': -1.0})
    ranked = stacking.weighed_candidates(view, {'volume_properties': {'size': 1}})
    assert [w.obj.host for w in ranked] == ['a@lvm', 'b@lvm'] and view.built_index is None
    bound = FilterScheduler().weighed_candidates(
        view, {'volume_properties': {'size': 1}, 'resource_backend': 'a@lvm'})
    assert [w.obj.host for w in bound] == ['a@lvm'] and view.built_index is None


def test_host_manager_claims_move_pools_in_the_index_of_its_view():
    hm = HostManager(daemons.make_conf(), daemons.make_db())
    pools = [pool(host='a@lvm', free_capacity_gb=100), pool(host='b@lvm', free_capacity_gb=90)]
    view = pool_index.PoolView(pools)
    hm._view = ((1, 1, 0), view, {})
    hm._local.view = view  # as the pools() that gave this thread the view leaves it
    scheduler = FilterScheduler()
    spec = {'volume_properties': {'size': 20}}
    assert scheduler.weighed_candidates(view, copy.deepcopy(spec))[0].obj.host == 'a@lvm'
    hm.consumed(pools[0], 20)
    assert [w.obj.host for w in scheduler.weighed_candidates(view, copy.deepcopy(spec))] == [
        'b@lvm', 'a@lvm']
