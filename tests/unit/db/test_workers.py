"""db/workers.py: taking a row bumps its epoch; only the holder's fenced writes land."""

import datetime
import logging

from cinderlike.db import services as db_services
from cinderlike.db import volumes as db_volumes
from cinderlike.db import workers as db_workers
from tests.fixtures import daemons


def _take(db, service_id):
    return db_workers.begin(db, resource_type='Volume', resource_id='v1', status='creating',
                            service_id=service_id)


def test_take_over_bumps_the_epoch_and_keeps_one_row():
    db = daemons.make_db()
    first = _take(db, None)
    second = _take(db, None)
    assert (first.epoch, second.epoch) == (1, 2) and first.id == second.id
    assert db_workers.get(db, resource_type='Volume', resource_id='v1').epoch == 2


def test_the_displaced_holder_can_neither_settle_the_volume_nor_remove_the_row():
    db = daemons.make_db()
    volume = db_volumes.create(db, values={'status': 'creating', 'volume_type_id': 't',
                                           'size': 1})
    old = db_workers.begin(db, resource_type='Volume', resource_id=volume.id,
                           status='creating', service_id=None)
    new = db_workers.begin(db, resource_type='Volume', resource_id=volume.id,
                           status='creating', service_id=None)
    assert not db_volumes.MACHINE.finish(db, row_id=volume.id, action='create',
                                 where=[db_workers.held(old)])
    assert not db_workers.finish(db, hold=old)
    assert db_volumes.get(db, volume_id=volume.id).status == 'creating'
    assert db_volumes.MACHINE.finish(db, row_id=volume.id, action='create',
                             where=[db_workers.held(new)])
    assert db_workers.finish(db, hold=new)
    assert db_volumes.get(db, volume_id=volume.id).status == 'available'
    assert db_workers.get(db, resource_type='Volume', resource_id=volume.id) is None



def _db_with_services(count=3):
    """A database with services 1..count (workers rows name their service by foreign key)."""
    db = daemons.make_db()
    for number in range(1, count + 1):
        db_services.register(db, host=f'node{number}', binary='cinder-volume',
                             topic='cinder-volume', availability_zone='nova')
    return db


def _volume_row(db, service_id):
    return db_workers.begin(db, resource_type='Volume', resource_id='v2', status='deleting',
                            service_id=service_id)


def test_one_cleanup_wins_a_row_and_the_loser_gets_nothing():
    db = _db_with_services()
    _volume_row(db, 1)
    (seen,) = db_workers.get_all(db, service_ids=[1])
    won = db_workers.take_over(db, worker=seen, service_id=2)
    assert won.epoch == seen.epoch + 1
    # a second cleaner read the same row before: its compare-and-swap finds it changed
    assert db_workers.take_over(db, worker=seen, service_id=3) is None
    assert db_workers.get(db, resource_type='Volume', resource_id='v2').service_id == 2


def test_give_back_restores_owner_and_time_but_keeps_the_old_holder_fenced():
    db = _db_with_services()
    old = _volume_row(db, 1)
    (seen,) = db_workers.get_all(db, service_ids=[1])
    claim = db_workers.take_over(db, worker=seen, service_id=2)
    assert db_workers.give_back(db, hold=claim, worker=seen)
    row = db_workers.get(db, resource_type='Volume', resource_id='v2')
    assert (row.service_id, row.updated_at, row.epoch) == (1, seen.updated_at, claim.epoch)
    assert not db_workers.finish(db, hold=old)


def test_get_all_keeps_rows_taken_until_the_request_time_any_type_case():
    db = _db_with_services()
    _volume_row(db, 1)
    (row,) = db_workers.get_all(db, resource_type='VOLUME', resource_id='v2')
    assert [r.id for r in db_workers.get_all(db, until=row.updated_at)] == [row.id]
    assert db_workers.get_all(db, until=row.updated_at - datetime.timedelta(seconds=1)) == []


def test_fenced_tells_a_take_over_from_a_row_still_held(caplog):
    db = _db_with_services()
    old = _volume_row(db, 1)
    assert not db_workers.fenced(db, hold=old, operation='delete')
    new = _volume_row(db, 2)
    with caplog.at_level(logging.WARNING):
        assert db_workers.fenced(db, hold=old, operation='delete')
    (message,) = [r.getMessage() for r in caplog.records]
    assert 'Volume v2: delete result refused' in message
    assert f'our epoch {old.epoch}, now {new.epoch}, service 2' in message
