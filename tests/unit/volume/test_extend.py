"""volume/extend.py through VolumeManager.extend_volume: commit or roll back, claim, status."""

from oslo_messaging.notify import _impl_test

from cinderlike import quota
from cinderlike.db import volumes as db_volumes
from tests.fixtures import daemons
from tests.unit.volume.conftest import (
    PROJECT,
    add_volume,
    claimed,
    ctx,
    event_ids,
    grow_claim,
    notified,
    row,
    usage,
    workers,
)


def _extending(manager, db, *, size=1, new_size=3, action='extend', status='available'):
    """An available volume moved to `extending`, its quota reserved and claim grown, as the
    API and the scheduler leave it."""
    volume = add_volume(db, size=size)
    manager.create_volume(ctx(), volume_id=volume.id, request_spec={}, filter_properties={})
    db_volumes.MACHINE.reset(db, row_id=volume.id, values={'status': status})
    db_volumes.MACHINE.begin(db, row_id=volume.id, action=action)
    reservations = quota.reserve(db, ctx(), conf=daemons.make_conf(), project_id=PROJECT,
                                 deltas={'gigabytes': new_size - size,
                                         'gigabytes___DEFAULT__': new_size - size})
    grow_claim(db, new_size - size)
    return volume, reservations


def test_extend_commits_quota_and_writes_the_size(manager, db):
    volume, reservations = _extending(manager, db, size=1, new_size=3)
    manager.extend_volume(ctx(), volume_id=volume.id, new_size=3, reservations=reservations)
    done = row(db, volume.id)
    assert (done.status, done.size) == ('available', 3)
    assert usage(db, 'gigabytes') == (3, 0) and usage(db, 'gigabytes___DEFAULT__') == (3, 0)
    assert claimed(db) == 3 and workers(db) == []
    assert manager.driver.get_volume_stats()['pools'][0]['allocated_capacity_gb'] == 3
    assert notified()[-2:] == ['volume.resize.start', 'volume.resize.end']
    end = _impl_test.NOTIFICATIONS[-1][1]['payload']
    assert (end['size'], end['status']) == (3, 'available')


def test_attached_volume_returns_to_in_use(manager, db):
    volume, reservations = _extending(manager, db, action='extend_attached', status='in-use')
    manager.extend_volume(ctx(), volume_id=volume.id, new_size=3, reservations=reservations)
    assert row(db, volume.id).status == 'in-use'


def test_driver_failure_is_error_extending_with_everything_given_back(manager, db, conf):
    volume, reservations = _extending(manager, db, size=1, new_size=4)
    conf.set_override('fake_fail', ['extend_volume'], group='lvm')
    manager.extend_volume(ctx(), volume_id=volume.id, new_size=4, reservations=reservations)
    failed = row(db, volume.id)
    assert (failed.status, failed.size) == ('error_extending', 1)
    assert usage(db, 'gigabytes') == (1, 0)
    assert claimed(db) == 1 and workers(db) == []
    assert event_ids(db) == ['VOLUME_VOLUME_007_010']


def test_volume_not_extending_is_left_alone(manager, db):
    volume = add_volume(db)
    manager.create_volume(ctx(), volume_id=volume.id, request_spec={}, filter_properties={})
    manager.extend_volume(ctx(), volume_id=volume.id, new_size=5, reservations=[])
    manager.extend_volume(ctx(), volume_id='no-such-volume', new_size=5, reservations=[])
    assert row(db, volume.id).size == 1 and workers(db) == []
