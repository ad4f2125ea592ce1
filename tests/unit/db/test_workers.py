"""db/workers.py: taking a row bumps its epoch; only the holder's fenced writes land."""

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
    assert not db_volumes.finish(db, volume_id=volume.id, action='create',
                                 where=[db_workers.held(old)])
    assert not db_workers.finish(db, claim=old)
    assert db_volumes.get(db, volume_id=volume.id).status == 'creating'
    assert db_volumes.finish(db, volume_id=volume.id, action='create',
                             where=[db_workers.held(new)])
    assert db_workers.finish(db, claim=new)
    assert db_volumes.get(db, volume_id=volume.id).status == 'available'
    assert db_workers.get(db, resource_type='Volume', resource_id=volume.id) is None
