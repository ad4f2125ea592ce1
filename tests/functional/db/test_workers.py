"""db/workers.py on PostgreSQL and MariaDB: concurrent takers of one workers row, and a
settle racing a take-over of its row."""

import threading
import time
import uuid

import pytest
import sqlalchemy as sa

from cinderlike.db import services as db_services
from cinderlike.db import settle as db_settle
from cinderlike.db import volumes as db_volumes
from cinderlike.db import workers as db_workers
from cinderlike.db.models import Pool
from tests.fixtures.race import race, split


def _take(db, resource_id, service_id=None):
    return lambda: db_workers.begin(db, resource_type='Volume', resource_id=resource_id,
                                    status='creating', service_id=service_id,
                                    request={'n': 1})


def test_concurrent_takers_share_one_row_and_only_the_last_holds_it(db):
    resource_id = str(uuid.uuid4())
    holds, errors = split(race(*(_take(db, resource_id) for _ in range(4))))
    assert errors == []
    # One row, every taker saw its own epoch (the first insert 1, each take-over one more).
    assert {hold.id for hold in holds} == {holds[0].id}
    assert sorted(hold.epoch for hold in holds) == [1, 2, 3, 4]
    row = db_workers.get(db, resource_type='Volume', resource_id=resource_id)
    assert row.epoch == 4 and row.request == {'n': 1}
    last = max(holds, key=lambda hold: hold.epoch)
    assert [db_workers.finish(db, hold=hold) for hold in holds if hold is not last] == [
        False] * 3
    assert db_workers.finish(db, hold=last)
    assert db_workers.get(db, resource_type='Volume', resource_id=resource_id) is None


def test_a_settled_operation_leaves_no_row_and_the_next_starts_at_epoch_one(db):
    resource_id = str(uuid.uuid4())
    first = _take(db, resource_id)()
    assert db_workers.finish(db, hold=first)
    second = _take(db, resource_id)()
    assert second.epoch == 1 and second.id != first.id
    taken = _take(db, resource_id)()
    assert (taken.id, taken.epoch) == (second.id, 2)
    assert not db_workers.finish(db, hold=second) and db_workers.finish(db, hold=taken)



def _creating_with_claim(db):
    """A placed `creating` volume, its 1 GB claimed and its workers row held; the service
    that will take it over."""
    sweeper = db_services.register(db, host='sweeper@fake', binary='cinder-volume',
                                   topic='cinder-volume', availability_zone='nova').id
    with db.writer() as s:
        s.add(Pool(name='node@fake#pool', backend='node@fake', allocated_capacity_gb=1,
                   provisioned_capacity_gb=1))
    volume = db_volumes.create(db, values={
        'status': 'creating', 'size': 1, 'host': 'node@fake#pool', 'project_id': 'p1',
        'volume_type_id': 'type-1', 'attach_status': 'detached'})
    hold = db_workers.begin(db, resource_type='Volume', resource_id=volume.id,
                            status='creating', service_id=None)
    return volume, hold, sweeper


_FAILED = db_settle.Outcome(action='create', error=True, release_gb=1)


def _settle(db, volume, hold):
    return db_settle.settle(db, db_volumes.MACHINE, row=volume, hold=hold, outcome=_FAILED)


def _state(db, volume):
    with db.reader() as s:
        allocated = s.scalar(sa.select(Pool.allocated_capacity_gb))
    return (db_volumes.get(db, volume_id=volume.id).status,
            db_workers.get(db, resource_type='Volume', resource_id=volume.id), allocated)


@pytest.mark.parametrize('attempt', range(6))
def test_a_settle_and_a_take_over_of_its_row_exactly_one_decides(fresh_db, attempt):
    """Whoever wins, its writes are whole: the claim is given back only by a settle that
    removed the row. The taker starts a little later in each attempt."""
    db = fresh_db
    volume, hold, sweeper = _creating_with_claim(db)
    worker = db_workers.get(db, resource_type='Volume', resource_id=volume.id)
    settled, taken = race(
        lambda: _settle(db, volume, hold),
        lambda: time.sleep(attempt * 0.0005) or db_workers.take_over(db, worker=worker,
                                                                     service_id=sweeper))
    status, row, allocated = _state(db, volume)
    if settled is db_settle.Settled.DONE:
        assert (status, row, taken, allocated) == ('error', None, None, 0)
    else:
        assert settled is db_settle.Settled.FENCED
        assert (status, allocated) == ('creating', 1)
        assert (row.service_id, row.epoch) == (sweeper, taken.epoch)


def test_a_take_over_between_a_settles_status_write_and_its_fence_undoes_the_status(
        fresh_db):
    """The take-over commits right after the settle's status UPDATE (it waits for no lock:
    the settle has not reached the workers row yet); the settle's DELETE then finds the row
    taken and its status write is rolled back."""
    db = fresh_db
    volume, hold, sweeper = _creating_with_claim(db)
    worker = db_workers.get(db, resource_type='Volume', resource_id=volume.id)
    taken = []

    def take_over_after_the_status_write(conn, cursor, statement, *_args):
        if statement.startswith('UPDATE volumes') and not taken:
            thread = threading.Thread(target=lambda: taken.append(
                db_workers.take_over(db, worker=worker, service_id=sweeper)))
            thread.start()
            thread.join()
    sa.event.listen(db.engine, 'after_cursor_execute', take_over_after_the_status_write)
    try:
        settled = _settle(db, volume, hold)
    finally:
        sa.event.remove(db.engine, 'after_cursor_execute', take_over_after_the_status_write)
    status, row, allocated = _state(db, volume)
    assert settled is db_settle.Settled.FENCED and taken[0] is not None
    assert (status, allocated) == ('creating', 1)
    assert (row.service_id, row.epoch) == (sweeper, taken[0].epoch)
