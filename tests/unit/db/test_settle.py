"""db/settle.py and Database.retrying: an operation's outcome is written once the database
answers again, within `[database] db_max_retries`."""

import contextlib

import pytest
import sqlalchemy as sa

from cinderlike.db import settle as db_settle
from cinderlike.db import volumes as db_volumes
from cinderlike.db import workers as db_workers
from tests.fixtures import daemons


def _creating(db):
    volume = db_volumes.create(db, values={'status': 'creating', 'volume_type_id': 't',
                                           'size': 1})
    hold = db_workers.begin(db, resource_type='Volume', resource_id=volume.id,
                            status='creating', service_id=None)
    return volume, hold


def _unreachable_for(db, failures):
    """db.writer() fails as a restarting server does, *failures* times; the transactions
    begun."""
    attempts = []
    writer = db.writer

    @contextlib.contextmanager
    def flaky(session=None):
        if session is None:  # a transaction of its own (not one composed into another)
            attempts.append(1)
            if len(attempts) <= failures:
                raise sa.exc.OperationalError('SELECT 1', {},
                                              ConnectionRefusedError('refused'))
        with writer(session) as s:
            yield s
    db.writer = flaky
    db.retry = (3, 0.01, 0.02)
    return attempts


def test_an_outcome_is_written_once_the_database_answers_again():
    db = daemons.make_db()
    volume, hold = _creating(db)
    attempts = _unreachable_for(db, failures=2)
    settled = db_settle.settle(db, db_volumes.MACHINE, row=volume, hold=hold,
                               outcome=db_settle.Outcome(action='create'))
    assert settled is db_settle.Settled.DONE
    assert len(attempts) == 3
    assert db_volumes.get(db, volume_id=volume.id).status == 'available'
    assert db_workers.get(db, resource_type='Volume', resource_id=volume.id) is None


def test_a_database_that_stays_away_fails_the_settle_after_the_retries():
    db = daemons.make_db()
    volume, hold = _creating(db)
    attempts = _unreachable_for(db, failures=10)
    with pytest.raises(sa.exc.OperationalError):
        db_settle.settle(db, db_volumes.MACHINE, row=volume, hold=hold,
                         outcome=db_settle.Outcome(action='create'))
    assert len(attempts) == 4  # the first try and db_max_retries = 3 more
    db.writer = type(db).writer.__get__(db)
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
