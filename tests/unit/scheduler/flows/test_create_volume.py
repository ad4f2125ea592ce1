"""scheduler/flows/create_volume.py: the spec task and the thick ceiling on thin pools."""

from cinderlike.scheduler.flows import create_volume
from tests.unit.scheduler import pools


def test_extract_keeps_the_spec_and_names_the_volume():
    spec = create_volume.ExtractSchedulerSpec().execute('v1', {'size': 1})
    assert spec == {'size': 1, 'volume_id': 'v1'}


def test_a_thick_volume_on_a_thin_pool_gets_the_thick_ceiling():
    thin_pool = pools.pool(thin_provisioning_support=True, max_over_subscription_ratio='2.0',
                           reserved_percentage=10)
    thick = {'volume_type': {'extra_specs': {'provisioning:type': 'thick'}}}
    assert create_volume.thick_ceiling(thin_pool, thick) == 90
    assert create_volume.thick_ceiling(thin_pool, {'volume_type': {'extra_specs': {}}}) is None
    assert create_volume.thick_ceiling(pools.pool(), thick) is None
