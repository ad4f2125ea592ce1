"""volume/create.py + flows/create_volume.py: create, clone, reschedule, last attempt."""

import pytest
import sqlalchemy as sa
from oslo_messaging.notify import _impl_test

from cinderlike.db.models import QualityOfServiceSpecs
from cinderlike.drivers.volume import base
from tests.fixtures import flaky_db
from tests.unit.volume.conftest import (
    HOST,
    POOL,
    add_volume,
    claimed,
    ctx,
    event_ids,
    notified,
    row,
    usage,
    workers,
)

SPEC = {'volume_properties': {'size': 1}}


def _create(manager, volume, *, attempts=None, allow_reschedule=True):
    props = {}
    if attempts is not None:
        props['retry'] = {'num_attempts': attempts, 'backends': [POOL], 'hosts': [POOL]}
    return manager.create_volume(ctx(), volume_id=volume.id, request_spec=SPEC,
                                 filter_properties=props, allow_reschedule=allow_reschedule)


def test_create_makes_the_volume_available(manager, db):
    volume = add_volume(db, size=2)
    _create(manager, volume, attempts=1)
    done = row(db, volume.id)
    assert done.status == 'available' and done.launched_at is not None
    assert done.provider_location == f'fake://{HOST}/volume-{volume.id}'
    assert manager.driver.has_volume(base.VolumeRef.of(done))
    assert workers(db) == [] and claimed(db) == 2
    assert notified() == ['volume.create.start', 'volume.create.end']
    end = _impl_test.NOTIFICATIONS[-1][1]
    assert end['publisher_id'] == f'volume.{HOST}'
    assert (end['payload']['status'], end['payload']['volume_id']) == ('available', volume.id)
    assert end['payload']['launched_at'] == done.launched_at.isoformat()
    assert manager.scheduler_api.casts == [] and event_ids(db) == []


@pytest.mark.parametrize('after_commit', [False, True], ids=['before', 'commit-answer-lost'])
def test_a_take_the_database_dropped_is_tried_again(manager, db, after_commit):
    """The workers row's take fails on a dead connection, or its COMMIT's answer is lost: it
    is taken again and the create goes on, not left to the lost-operation sweep."""
    volume = add_volume(db, size=2)
    attempts = flaky_db.unreachable_for(db, 1, after_commit=after_commit)
    _create(manager, volume, attempts=1)
    flaky_db.reachable(db)
    assert len(attempts) == 3  # the take twice, then the settle
    assert row(db, volume.id).status == 'available'
    assert workers(db) == [] and claimed(db) == 2


def test_clone_copies_the_source_on_this_backend(manager, db):
    source = add_volume(db, size=1)
    _create(manager, source)
    clone = add_volume(db, size=3, source_volid=source.id)
    _create(manager, clone)
    assert row(db, clone.id).status == 'available'
    assert manager.driver.get_volume_stats()['pools'][0]['allocated_capacity_gb'] == 4


def test_driver_failure_reschedules_with_the_tried_backend(manager, db, conf):
    conf.set_override('fake_fail', ['create_volume'], group='lvm')
    volume = add_volume(db, size=2)
    _create(manager, volume, attempts=1)
    left = row(db, volume.id)
    assert (left.status, left.host, left.cluster_name) == ('creating', None, None)
    assert left.scheduled_at is not None
    [(method, cast)] = manager.scheduler_api.casts
    assert method == 'create_volume' and cast['volume_id'] == volume.id
    assert cast['request_spec'] == SPEC
    retry = cast['filter_properties']['retry']
    assert retry['backends'] == [POOL] and retry['num_attempts'] == 1
    assert 'injected failure of create_volume' in ''.join(retry['exc'])
    # the pool's claim went back; the quota stays with the volume
    assert claimed(db) == 0 and usage(db, 'gigabytes') == (2, 0)
    assert workers(db) == [] and event_ids(db) == []


def test_a_backend_missing_from_the_retry_list_is_added(manager, db, conf):
    conf.set_override('fake_fail', ['create_volume'], group='lvm')
    volume = add_volume(db)
    manager.create_volume(ctx(), volume_id=volume.id, request_spec=SPEC,
                          filter_properties={'retry': {'num_attempts': 1, 'backends': ['x@y#p']}})
    retry = manager.scheduler_api.casts[0][1]['filter_properties']['retry']
    assert retry['backends'] == ['x@y#p', POOL] and retry['hosts'] == [POOL]


def test_last_attempt_ends_in_error_with_a_user_message(manager, db, conf):
    conf.set_override('fake_fail', ['create_volume'], group='lvm')
    volume = add_volume(db, size=2)
    _create(manager, volume, attempts=3)
    assert row(db, volume.id).status == 'error'
    assert row(db, volume.id).host == POOL
    assert manager.scheduler_api.casts == []
    assert event_ids(db) == ['VOLUME_VOLUME_008_012']
    assert claimed(db) == 0 and workers(db) == []
    assert notified() == ['volume.create.start']


def test_no_retry_info_or_reschedule_disallowed_means_error(manager, db, conf):
    conf.set_override('fake_fail', ['create_volume'], group='lvm')
    first, second = add_volume(db), add_volume(db)
    _create(manager, first)
    _create(manager, second, attempts=1, allow_reschedule=False)
    assert row(db, first.id).status == row(db, second.id).status == 'error'
    assert manager.scheduler_api.casts == []


def test_uninitialised_driver_is_a_driver_not_initialised_message(manager, db):
    manager.initialized = False
    volume = add_volume(db)
    _create(manager, volume, attempts=3)
    assert row(db, volume.id).status == 'error'
    assert event_ids(db) == ['VOLUME_VOLUME_008_002']


def test_volume_no_longer_creating_is_left_alone(manager, db):
    volume = add_volume(db, status='deleting')
    _create(manager, volume, attempts=1)
    assert row(db, volume.id).status == 'deleting'
    assert workers(db) == [] and manager.scheduler_api.casts == []


class UnreachableScheduler:
    def create_volume(self, ctxt, **kwargs):
        raise ConnectionError('broker down')


def test_a_reschedule_that_cannot_be_sent_ends_in_error(manager, db, conf):
    conf.set_override('fake_fail', ['create_volume'], group='lvm')
    manager.scheduler_api = UnreachableScheduler()
    volume = add_volume(db)
    _create(manager, volume, attempts=1)
    assert row(db, volume.id).status == 'error'
    assert event_ids(db) == ['VOLUME_VOLUME_008_012'] and workers(db) == []


@pytest.mark.parametrize('consumer, applied', [('back-end', True), ('both', True),
                                               ('front-end', False)])
def test_the_types_back_end_qos_specs_reach_the_driver(manager, db, consumer, applied):
    from cinderlike.db import qos_specs as db_qos_specs
    from cinderlike.db import volume_types as db_types
    qos = db_qos_specs.create(db, name=f'gold-{consumer}', consumer=consumer,
                              specs={'total_iops_sec': '500'})
    db_qos_specs.associate(db, specs_id=qos.id,
                           type_id=db_types.get_by_name(db, name='__DEFAULT__').id)
    volume = add_volume(db)
    _create(manager, volume, attempts=1)
    assert row(db, volume.id).status == 'available'
    name = f'volume-{volume.id}'
    assert manager.driver.qos.get(name) == ({'total_iops_sec': '500'} if applied else None)


def test_a_volume_whose_type_is_gone_ends_in_error_without_a_reschedule(manager, db):
    """The type (and its QoS specs) is read with the take of the workers row; a type that
    is gone fails the flow after its reschedule guard, which settles `error`."""
    volume = add_volume(db, size=2, volume_type_id='no-such-type')
    assert not _create(manager, volume, attempts=1)
    assert row(db, volume.id).status == 'error'
    assert manager.scheduler_api.casts == [] and workers(db) == [] and claimed(db) == 0
    assert event_ids(db) == ['VOLUME_VOLUME_008_012']
    assert not manager.driver.has_volume(base.VolumeRef.of(volume))


def test_a_type_pointing_at_deleted_qos_specs_gives_the_driver_none(manager, db):
    from cinderlike.db import qos_specs as db_qos_specs
    from cinderlike.db import volume_types as db_types
    qos = db_qos_specs.create(db, name='gone', consumer='back-end',
                              specs={'total_iops_sec': '500'})
    db_qos_specs.associate(db, specs_id=qos.id,
                           type_id=db_types.get_by_name(db, name='__DEFAULT__').id)
    with db.writer() as s:  # the root row deleted, the type still pointing at it
        s.execute(sa.update(QualityOfServiceSpecs).where(QualityOfServiceSpecs.id == qos.id)
                  .values(deleted=True))
    volume = add_volume(db)
    _create(manager, volume, attempts=1)
    assert row(db, volume.id).status == 'available'
    assert manager.driver.qos.get(f'volume-{volume.id}') is None


def test_the_take_reads_the_types_qos_in_its_own_select(manager, db):
    """Two transactions (the take, the settle) and no statement for the QoS specs: the
    take's locking SELECT carries the type's QoS specs id."""
    volume = add_volume(db)
    statements = []
    sa.event.listen(db.engine, 'before_cursor_execute',
                    lambda *args: statements.append(args[2]))
    _create(manager, volume, attempts=1)
    assert row(db, volume.id).status == 'available'
    take = next(sql for sql in statements if sql.lstrip().startswith('SELECT')
                and 'FROM volumes' in sql)
    assert 'qos_specs_id' in take
    assert not [sql for sql in statements if 'FROM volume_types' in sql and sql is not take]
