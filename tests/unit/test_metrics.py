"""metrics.Metrics.counting: the RPC endpoint proxy counts and times each call by outcome."""

import pytest

from cinderlike import exception, metrics


class Manager:
    target = 'the target'
    report_interval = 10

    def create_volume(self, ctx, *, volume_id):
        return f'created {volume_id}'

    def delete_volume(self, ctx, *, volume_id):
        raise exception.VolumeNotFound(volume_id=volume_id)

    def _private(self):
        return 'not counted'


def _sample(registry, name, **labels):
    return registry.get_sample_value(name, labels) or 0


@pytest.fixture
def counted(db):
    meter = metrics.Metrics(db=db)
    manager = Manager()
    return meter.registry, manager, meter.counting(manager)


def test_calls_are_counted_by_outcome_and_timed(counted):
    registry, _, proxy = counted
    assert proxy.create_volume(None, volume_id='v1') == 'created v1'
    assert proxy.create_volume(None, volume_id='v2') == 'created v2'
    with pytest.raises(exception.VolumeNotFound):
        proxy.delete_volume(None, volume_id='v3')

    assert _sample(registry, 'cinderlike_rpc_messages_total',
                   method='create_volume', outcome='ok') == 2
    assert _sample(registry, 'cinderlike_rpc_messages_total',
                   method='delete_volume', outcome='VolumeNotFound') == 1
    assert _sample(registry, 'cinderlike_rpc_messages_total',
                   method='delete_volume', outcome='ok') == 0
    assert _sample(registry, 'cinderlike_rpc_duration_seconds_count',
                   method='create_volume') == 2
    assert _sample(registry, 'cinderlike_rpc_duration_seconds_count',
                   method='delete_volume') == 1


def test_other_attributes_pass_through_uncounted(counted):
    registry, _, proxy = counted
    assert proxy.target == 'the target'
    assert proxy.report_interval == 10
    assert proxy._private() == 'not counted'
    assert not [sample for metric in registry.collect() for sample in metric.samples
                if sample.labels.get('method') == '_private']


def test_one_wrapper_per_method_calling_what_the_endpoint_holds_at_the_call(counted):
    registry, manager, proxy = counted
    assert proxy.create_volume is proxy.create_volume
    assert proxy.create_volume.__name__ == 'create_volume'
    wrapper = proxy.create_volume
    manager.create_volume = lambda ctx, *, volume_id: f'replaced {volume_id}'
    assert wrapper(None, volume_id='v4') == 'replaced v4'
    assert _sample(registry, 'cinderlike_rpc_messages_total',
                   method='create_volume', outcome='ok') == 1
