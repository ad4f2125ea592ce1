"""volume/manager.py: driver loading, init retries with backoff, capability reports."""

import pytest

from cinderlike import context, exception
from cinderlike.conf import volume as volume_conf
from cinderlike.db import engine, models
from cinderlike.drivers.volume import fake
from cinderlike.volume import manager as volume_manager
from tests.fixtures import daemons


class FlakyDriver(fake.FakeDriver):
    """Fails do_setup the number of times the test sets in `failures`."""

    failures = 0

    def do_setup(self, context):
        if FlakyDriver.failures:
            FlakyDriver.failures -= 1
            raise OSError('backend not ready')


class RecordingPublisher:
    def __init__(self):
        self.sent = []

    def publish(self, ctxt, gather, record=None):
        self.sent.append(gather())


@pytest.fixture
def conf():
    conf = daemons.make_conf(host='node1')
    yield conf
    daemons.close_transports()


def _manager(conf, backend='lvm', sleeps=None, **options):
    volume_conf.register_backend(conf, backend, fake.DRIVER_OPTS)
    for key, value in options.items():
        conf.set_override(key, value, group=backend)
    sleep = sleeps.append if sleeps is not None else None
    kwargs = {'sleep': sleep} if sleep else {}
    # NOTE(db): init_host cleans the service's workers rows, so it needs the tables.
    db = engine.Database('sqlite://')
    models.Base.metadata.create_all(db.engine)
    manager = volume_manager.VolumeManager(conf, host=f'node1@{backend}', db=db,
                                           backend=backend, **kwargs)
    manager._publisher = RecordingPublisher()
    return manager


def test_fake_alias_loads_the_fake_driver_with_its_options(conf):
    manager = _manager(conf, volume_driver='fake', fake_total_capacity_gb=50)
    assert isinstance(manager.driver, fake.FakeDriver)
    stats = manager.driver.get_volume_stats()
    assert stats['pools'][0]['total_capacity_gb'] == 50


def test_unknown_or_missing_driver_is_refused(conf):
    with pytest.raises(exception.VolumeDriverNotFound):
        _manager(conf, volume_driver='no.such.Driver')
    with pytest.raises(exception.VolumeDriverNotFound):
        _manager(conf, backend='other')
    with pytest.raises(exception.VolumeDriverNotFound):
        _manager(conf, backend='third', volume_driver='cinderlike.context.RequestContext')


def test_backend_section_falls_back_to_backend_defaults(conf):
    volume_conf.register_backend(conf, 'lvm')
    conf.set_override('reserved_percentage', 7, group='backend_defaults')
    conf.set_override('max_over_subscription_ratio', '3.0', group='backend_defaults')
    conf.set_override('max_over_subscription_ratio', '5.0', group='lvm')
    manager = _manager(conf, volume_driver='fake')
    pool = manager.driver.get_volume_stats()['pools'][0]
    assert (pool['reserved_percentage'], pool['max_over_subscription_ratio']) == (7, '5.0')


@pytest.mark.parametrize('failures,sleeps,working', [
    (0, [], True),
    (2, [1, 2], True),
    (3, [1, 2, 4], True),
    (4, [1, 2, 4], False),
])
def test_driver_init_retries_with_exponential_backoff(conf, failures, sleeps, working):
    FlakyDriver.failures = failures
    slept = []
    manager = _manager(conf, sleeps=slept, volume_driver=f'{__name__}.FlakyDriver',
                       reinit_driver_count=3)
    manager.init_host(context.get_admin_context())
    assert slept == sleeps
    assert manager.is_working() is working
    assert manager._publisher.sent == []  # not before the queues exist
    manager.init_host_with_rpc(context.get_admin_context())
    # capabilities are reported once the driver is up, never for a dead backend
    assert len(manager._publisher.sent) == (1 if working else 0)


def test_capability_report_carries_driver_stats_and_backend_state(conf):
    manager = _manager(conf, volume_driver='fake', volume_backend_name='gold')
    manager.init_host(context.get_admin_context())
    manager.init_host_with_rpc(context.get_admin_context())
    manager.publish_service_capabilities(context.get_admin_context())
    first, second = manager._publisher.sent
    assert first == second
    assert first['volume_backend_name'] == 'gold'
    assert first['backend_state'] == 'up'
    assert first['pools'][0]['pool_name'] == 'gold'


def test_capability_period_comes_from_the_backend_section(conf):
    manager = _manager(conf, volume_driver='fake', backend_stats_polling_interval=7)
    assert manager.periodic_option('backend_stats_polling_interval') == 7
