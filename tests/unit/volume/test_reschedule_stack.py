"""A scheduler and two fake backends on the fake transport and SQLite: a driver failure on the
first backend is rescheduled to the second; a failure on the last attempt is `error`."""

import pytest

from cinderlike import service
from cinderlike.conf import volume as volume_conf
from cinderlike.drivers.volume import fake
from cinderlike.scheduler import manager as scheduler_manager
from cinderlike.scheduler import rpcapi as scheduler_rpcapi
from cinderlike.volume import manager as volume_manager
from tests.fixtures import daemons
from tests.unit.volume.conftest import add_volume, claimed, ctx, event_ids, row, workers


@pytest.fixture
def stack(conf, db):
    """Backend big (chosen first: most free capacity) fails creates; backend small works."""
    conf.set_override('report_interval', 3600)
    conf.set_override('periodic_interval', 3600)
    conf.set_override('scheduler_driver_init_wait_time', 1)
    conf.set_override('scheduler_max_attempts', 2)
    for backend, total, fail in (('big', 1000, ['create_volume']), ('small', 100, [])):
        volume_conf.register_backend(conf, backend, fake.DRIVER_OPTS)
        conf.set_override('volume_driver', 'fake', group=backend)
        conf.set_override('fake_total_capacity_gb', total, group=backend)
        conf.set_override('fake_fail', fail, group=backend)
    svcs = [service.Service(conf, host='s1', manager_cls=scheduler_manager.SchedulerManager,
                            db=db, shared_transport=True)]
    for backend in ('big', 'small'):
        svcs.append(service.Service(conf, host=f'node1@{backend}',
                                    manager_cls=volume_manager.VolumeManager,
                                    manager_kwargs={'backend': backend}, db=db,
                                    coordination=True, shared_transport=True))
    for svc in svcs:
        svc.start()
    yield scheduler_rpcapi.SchedulerAPI(conf)
    for svc in svcs:
        svc.stop()


def _spec(volume, size):
    props = {'size': size, 'availability_zone': 'nova', 'project_id': volume.project_id}
    return {'volume_id': volume.id, 'volume_properties': props, 'resource_properties': props,
            'volume_type': {'id': volume.volume_type_id, 'name': '__DEFAULT__',
                            'extra_specs': {}}}


def test_failure_on_the_first_backend_is_rescheduled_to_the_second(stack, db):
    volume = add_volume(db, size=3, host=None, claim=False)
    stack.create_volume(ctx(), volume_id=volume.id, request_spec=_spec(volume, 3),
                        filter_properties={})
    daemons.wait_for(lambda: row(db, volume.id).status != 'creating', timeout=20)
    done = row(db, volume.id)
    assert (done.status, done.host) == ('available', 'node1@small#FakeDriver')
    assert claimed(db, 'node1@big#FakeDriver') == 0 and claimed(db, 'node1@small#FakeDriver') == 3
    assert workers(db) == [] and event_ids(db) == []


def test_failure_on_the_last_attempt_is_error_with_a_user_message(stack, db, conf):
    conf.set_override('fake_fail', ['create_volume'], group='small')
    volume = add_volume(db, size=3, host=None, claim=False)
    stack.create_volume(ctx(), volume_id=volume.id, request_spec=_spec(volume, 3),
                        filter_properties={})
    # NOTE(order): the message is written just after the status, in its own transaction.
    daemons.wait_for(lambda: event_ids(db), timeout=20)
    assert row(db, volume.id).status == 'error'
    assert event_ids(db) == ['VOLUME_VOLUME_008_012']
    assert claimed(db, 'node1@big#FakeDriver') == claimed(db, 'node1@small#FakeDriver') == 0
    assert workers(db) == []
