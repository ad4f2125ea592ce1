"""volume/capabilities.py and the get_capabilities call, answered by a running volume service."""

import pytest

from cinderlike import context, service
from cinderlike.conf import volume as volume_conf
from cinderlike.volume import capabilities, rpcapi
from cinderlike.volume import manager as volume_manager
from tests.fixtures import daemons


def test_describe_adds_cinders_standard_properties_to_a_copy_of_the_stats():
    stats = {'volume_backend_name': 'lvm', 'storage_protocol': 'iSCSI',
             'pools': [{'pool_name': 'p1'}]}
    described = capabilities.describe(stats)
    assert described['volume_backend_name'] == 'lvm'
    assert described['pools'] == [{'pool_name': 'p1'}]
    assert set(described['properties']) == {'thin_provisioning', 'compression', 'qos',
                                             'replication_enabled'}
    assert described['properties']['qos'] == {
        'title': 'QoS', 'description': 'Enables QoS.', 'type': 'boolean'}
    assert 'properties' not in stats
    described['properties']['qos']['type'] = 'string'
    assert capabilities.STANDARD_PROPERTIES['qos']['type'] == 'boolean'


def test_describe_of_no_stats_has_only_the_properties():
    assert set(capabilities.describe(None)) == {'properties'}


@pytest.fixture
def volume_service():
    conf = daemons.make_conf(report_interval=3600, periodic_interval=3600,
                             periodic_fuzzy_delay=0)
    volume_conf.register_backend(conf, 'lvm')
    conf.set_override('volume_driver', 'fake', group='lvm')
    conf.set_override('volume_backend_name', 'lvm-1', group='lvm')
    svc = service.Service(conf, host='n1@lvm', manager_cls=volume_manager.VolumeManager,
                          manager_kwargs={'backend': 'lvm'}, db=daemons.make_db(),
                          shared_transport=True)
    svc.start()
    yield conf, svc.manager
    svc.stop()
    daemons.close_transports()


@pytest.mark.parametrize('discover', [False, True])
def test_the_backend_answers_the_call_with_its_stats_and_properties(volume_service, discover):
    conf, _manager = volume_service
    answer = rpcapi.VolumeAPI(conf).get_capabilities(
        context.get_admin_context(), host='n1@lvm', discover=discover)
    assert answer['volume_backend_name'] == 'lvm-1'
    assert answer['vendor_name'] == 'cinderlike'
    assert answer['storage_protocol'] == 'fake'
    assert answer['pools'][0]['pool_name'] == 'lvm-1'
    assert set(answer['properties']) == set(capabilities.STANDARD_PROPERTIES)


def test_a_backend_whose_driver_is_down_has_no_capabilities(volume_service):
    conf, manager = volume_service
    manager.initialized = False
    assert rpcapi.VolumeAPI(conf).get_capabilities(
        context.get_admin_context(), host='n1@lvm') == {}
