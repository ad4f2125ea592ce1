"""db/workers.py on PostgreSQL and MariaDB: concurrent takers of one workers row."""

import uuid

from cinderlike.db import workers as db_workers
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
