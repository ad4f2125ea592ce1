"""capacity.pool after each capability report: one per pool, with the database's claim."""

from oslo_messaging.notify import _impl_test

from cinderlike import context
from cinderlike.db import pools as db_pools


def _capacity_payloads():
    return [m for _ctxt, m, _prio, _retry in _impl_test.NOTIFICATIONS
            if m['event_type'] == 'capacity.pool']


def test_a_report_sends_capacity_pool_with_the_claimed_amount(manager, db):
    manager._report_capabilities(context.get_admin_context())
    [first] = _capacity_payloads()
    pool = first['payload']['name_to_id']
    assert first['publisher_id'] == 'capacity.node1@lvm'
    assert pool.startswith('node1@lvm#')
    assert db_pools.claim(db, pool=pool, size_gb=7)
    manager._report_capabilities(context.get_admin_context())
    payload = _capacity_payloads()[-1]['payload']
    stats = manager.driver.get_volume_stats()['pools'][0]
    assert (payload['name_to_id'], payload['allocated']) == (pool, 7)
    assert payload['total'] == stats['total_capacity_gb']
    assert set(payload) == {'name_to_id', 'total', 'free', 'allocated', 'provisioned',
                            'virtual_free', 'reported_at'}
    assert payload['reported_at'] is not None
