"""db/settle.py and Database.retrying: an operation's outcome is written once the database
answers again, within `[database] db_max_retries`."""

import pytest
import sqlalchemy as sa

from cinderlike.db import models
from cinderlike.db import settle as db_settle
from cinderlike.db import volumes as db_volumes
from cinderlike.db import workers as db_workers
from tests.fixtures import daemons, flaky_db


def _creating(db):
    volume = db_volumes.create(db, values={'status': 'creating', 'volume_type_id': 't',
                                           'size': 1})
    hold = db_workers.begin(db, resource_type='Volume', resource_id=volume.id,
                            status='creating', service_id=None)
    return volume, hold


def test_an_outcome_is_written_once_the_database_answers_again():
    db = daemons.make_db()
    volume, hold = _creating(db)
    attempts = flaky_db.unreachable_for(db, failures=2)
    settled = db_settle.settle(db, db_volumes.MACHINE, row=volume, hold=hold,
                               outcome=db_settle.Outcome(action='create'))
    assert settled is db_settle.Settled.DONE
    assert len(attempts) == 3
    assert db_volumes.get(db, volume_id=volume.id).status == 'available'
    assert db_workers.get(db, resource_type='Volume', resource_id=volume.id) is None


def test_a_database_that_stays_away_fails_the_settle_after_the_retries():
    db = daemons.make_db()
    volume, hold = _creating(db)
    attempts = flaky_db.unreachable_for(db, failures=10)
    with pytest.raises(sa.exc.OperationalError):
        db_settle.settle(db, db_volumes.MACHINE, row=volume, hold=hold,
                         outcome=db_settle.Outcome(action='create'))
    assert len(attempts) == 4  # the first try and db_max_retries = 3 more
    flaky_db.reachable(db)
    assert db_volumes.get(db, volume_id=volume.id).status == 'creating'


def test_other_errors_are_not_retried():
    db = daemons.make_db()
    calls = []

    def work():
        calls.append(1)
        raise ValueError('not the database')
    with pytest.raises(ValueError):
        db.retrying(work, what='test')
    assert calls == [1]


def test_the_retry_bounds_come_from_the_database_options():
    conf = daemons.make_conf()
    conf.set_override('connection', 'sqlite://', group='database')
    conf.set_override('db_max_retries', 5, group='database')
    conf.set_override('db_retry_interval', 2, group='database')
    conf.set_override('db_max_retry_interval', 7, group='database')
    assert type(daemons.make_db()).from_conf(conf).retry == (5, 2, 7)


def _pool(db, name='node@fake#pool', gb=1):
    with db.writer() as s:
        s.add(models.Pool(name=name, backend='node@fake', allocated_capacity_gb=gb,
                          provisioned_capacity_gb=gb))


def _allocated(db):
    with db.reader() as s:
        return s.scalar(sa.select(models.Pool.allocated_capacity_gb))


def _failed_create(volume):
    """A create that failed: its claim given back with its error status."""
    return db_settle.Outcome(action='create', error=True, release_gb=volume.size)


def test_a_settle_taken_over_writes_nothing_and_leaves_the_row_to_its_taker():
    db = daemons.make_db()
    volume, hold = _creating(db)
    db_volumes.MACHINE.reset(db, row_id=volume.id, values={'host': 'node@fake#pool'})
    _pool(db)
    taken = db_workers.begin(db, resource_type='Volume', resource_id=volume.id,
                             status='creating', service_id=None)
    settled = db_settle.settle(db, db_volumes.MACHINE, row=volume, hold=hold,
                               outcome=_failed_create(volume))
    # The status UPDATE ran before the fence failed: it was rolled back with the rest.
    assert settled is db_settle.Settled.FENCED
    assert db_volumes.get(db, volume_id=volume.id).status == 'creating'
    assert _allocated(db) == 1
    assert db_workers.get(db, resource_type='Volume', resource_id=volume.id).epoch == taken.epoch


def test_a_settle_in_a_callers_transaction_taken_over_undoes_only_its_own_writes():
    db = daemons.make_db()
    volume, hold = _creating(db)
    other, _ = _creating(db)
    db_workers.begin(db, resource_type='Volume', resource_id=volume.id, status='creating',
                     service_id=None)
    with db.writer() as s:
        db_volumes.MACHINE.reset(db, row_id=other.id, values={'display_name': 'kept'},
                                 session=s)
        settled = db_settle.settle(db, db_volumes.MACHINE, row=volume, hold=hold,
                                   outcome=db_settle.Outcome(action='create'), session=s)
    assert settled is db_settle.Settled.FENCED
    assert db_volumes.get(db, volume_id=volume.id).status == 'creating'
    assert db_volumes.get(db, volume_id=other.id).display_name == 'kept'
