"""volume/delete.py through VolumeManager.delete_volume: quota, claim, busy and failures."""

import threading

import pytest
import sqlalchemy as sa

from cinderlike import locks
from cinderlike.db import volumes as db_volumes
from cinderlike.db.models import VolumeType
from cinderlike.drivers.volume import base
from tests.fixtures import flaky_db
from tests.unit.volume.conftest import (
    add_volume,
    claimed,
    ctx,
    lock_files,
    notified,
    row,
    usage,
    workers,
)

SPEC = {'volume_properties': {'size': 1}}


def _available(manager, db, size=2):
    volume = add_volume(db, size=size)
    manager.create_volume(ctx(), volume_id=volume.id, request_spec=SPEC, filter_properties={})
    return row(db, volume.id)


def _begin_delete(db, volume):
    return db_volumes.MACHINE.begin(db, row_id=volume.id, action='delete')


def test_delete_releases_quota_and_claim_and_soft_deletes(manager, db):
    volume = _available(manager, db, size=2)
    assert claimed(db) == 2 and usage(db, 'gigabytes') == (2, 0)
    _begin_delete(db, volume)
    manager.delete_volume(ctx(), volume_id=volume.id)
    gone = row(db, volume.id)
    assert gone.deleted and gone.status == 'deleted'
    assert not manager.driver.has_volume(base.VolumeRef.of(volume))
    assert claimed(db) == 0 and workers(db) == []
    for resource in ('volumes', 'gigabytes', 'volumes___DEFAULT__', 'gigabytes___DEFAULT__'):
        assert usage(db, resource) == (0, 0), resource
    assert notified()[-2:] == ['volume.delete.start', 'volume.delete.end']


def test_a_deleted_type_still_names_the_usage_given_back(manager, db):
    """The take reads the type's name (WITH_TYPE_NAME), deleted types included."""
    volume = _available(manager, db, size=2)
    with db.writer() as s:
        s.execute(sa.update(VolumeType).where(VolumeType.id == volume.volume_type_id)
                  .values(deleted=True))
    _begin_delete(db, volume)
    manager.delete_volume(ctx(), volume_id=volume.id)
    assert row(db, volume.id).deleted
    assert usage(db, 'volumes___DEFAULT__') == (0, 0)
    assert usage(db, 'gigabytes___DEFAULT__') == (0, 0)


@pytest.mark.parametrize('after_commit', [False, True], ids=['before', 'commit-answer-lost'])
def test_a_take_the_database_dropped_is_tried_again(manager, db, after_commit):
    volume = _available(manager, db, size=2)
    _begin_delete(db, volume)
    attempts = flaky_db.unreachable_for(db, 1, after_commit=after_commit)
    manager.delete_volume(ctx(), volume_id=volume.id)
    flaky_db.reachable(db)
    assert len(attempts) == 3  # the take twice, then the settle
    assert row(db, volume.id).deleted
    assert claimed(db) == 0 and workers(db) == []


def test_a_failed_create_gave_its_claim_back_so_delete_releases_only_quota(manager, db, conf):
    conf.set_override('fake_fail', ['create_volume'], group='lvm')
    volume = _available(manager, db, size=2)
    assert volume.status == 'error' and claimed(db) == 0
    _begin_delete(db, volume)
    manager.delete_volume(ctx(), volume_id=volume.id)
    assert row(db, volume.id).deleted
    assert claimed(db) == 0 and usage(db, 'gigabytes') == (0, 0)


def test_busy_volume_goes_back_to_available(manager, db, conf):
    volume = _available(manager, db)
    _begin_delete(db, volume)
    conf.set_override('fake_fail', ['delete_volume_busy'], group='lvm')
    manager.delete_volume(ctx(), volume_id=volume.id)
    assert row(db, volume.id).status == 'available'
    assert usage(db, 'volumes') == (1, 0) and claimed(db) == 2 and workers(db) == []


def test_driver_failure_leaves_error_deleting_and_its_lock_file(manager, db, conf):
    volume = _available(manager, db)
    _begin_delete(db, volume)
    conf.set_override('fake_fail', ['delete_volume'], group='lvm')
    manager.delete_volume(ctx(), volume_id=volume.id)
    assert row(db, volume.id).status == 'error_deleting'
    assert usage(db, 'volumes') == (1, 0) and claimed(db) == 2
    assert locks.delete_volume(volume.id) in lock_files(conf)


def test_a_deleted_volume_leaves_no_lock_file_behind(manager, db, conf):
    kept, volume = _available(manager, db), _available(manager, db)
    for vol in (kept, volume):
        with manager.coordinator.get_lock(locks.volume_connections(vol.id)):
            pass
    _begin_delete(db, volume)
    manager.delete_volume(ctx(), volume_id=volume.id)
    assert row(db, volume.id).deleted
    assert not [name for name in lock_files(conf) if volume.id in name]
    assert locks.volume_connections(kept.id) in lock_files(conf)
    # a delete that comes again makes its lock's file, then finds the volume gone
    manager.delete_volume(ctx(), volume_id=volume.id)
    assert not [name for name in lock_files(conf) if volume.id in name]


def test_not_deleting_or_missing_volume_is_left_alone(manager, db):
    volume = _available(manager, db)
    manager.delete_volume(ctx(), volume_id=volume.id)
    manager.delete_volume(ctx(), volume_id='no-such-volume')
    assert row(db, volume.id).status == 'available' and workers(db) == []


def test_delete_waits_for_the_volumes_lock(manager, db):
    volume = _available(manager, db)
    _begin_delete(db, volume)
    lock = manager.coordinator.get_lock(locks.delete_volume(volume.id))
    assert locks.delete_volume(volume.id) == f'cinder-{volume.id}-delete_volume'
    lock.acquire()
    worker = threading.Thread(target=manager.delete_volume, args=(ctx(),),
                              kwargs={'volume_id': volume.id})
    worker.start()
    worker.join(0.3)
    assert worker.is_alive() and not row(db, volume.id).deleted
    lock.release()
    worker.join(10)
    assert row(db, volume.id).deleted
