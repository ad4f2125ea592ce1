"""The chaos run's judgement (tests/functional/e2e/chaos.py, chaos_load.py) without servers:
what counts as an operation's outcome, the seeded fault schedule, and which 5xx are allowed."""

import datetime
import itertools
import random

import pytest

from tests.functional.e2e import chaos
from tests.functional.e2e.chaos_load import Ledger, Op, success


def _op(kind, resource='volume', new_size=None):
    return Op(kind, resource, 'id-1', 0.0, datetime.datetime(2026, 1, 1), new_size)


def _row(status, size=1, deleted=False):
    return {'status': status, 'size': size, 'deleted': deleted}


@pytest.mark.parametrize('op, row, expected', [
    (_op('create'), _row('creating'), None),
    (_op('create'), _row('available'), True),
    (_op('clone'), _row('error'), False),
    (_op('create'), None, None),
    (_op('extend', new_size=2), _row('extending'), None),
    (_op('extend', new_size=2), _row('available', size=2), True),
    (_op('extend', new_size=2), _row('available', size=1), False),   # settled, not extended
    (_op('extend', new_size=2), _row('error_extending'), False),
    (_op('delete'), _row('deleting'), None),
    (_op('delete'), _row('deleted', deleted=True), True),
    (_op('delete'), _row('available'), False),                       # settled, not deleted
    (_op('delete'), _row('error_deleting'), False),
    (_op('snapshot', 'snapshot'), _row('available'), True),
    (_op('delete_snapshot', 'snapshot'), _row('deleting'), None),
    (_op('backup', 'backup'), _row('creating'), None),
    (_op('backup', 'backup'), _row('available', deleted=True), False),
    (_op('delete_backup', 'backup'), _row('deleted', deleted=True), True),
    (_op('attach', 'attachment'), None, True),                       # the 200 was the outcome
])
def test_outcome_of_an_operation(op, row, expected):
    assert success(op, row) is expected


def _faults(seed=3, duration=300.0):
    return chaos.Faults(None, {}, random.Random(seed),
                        chaos.Options(duration=duration, kill_interval=20.0))


def test_the_schedule_is_seeded_and_restarts_each_server_once():
    schedule = _faults().schedule
    assert schedule == _faults().schedule != _faults(seed=4).schedule
    kinds = [what for _, what in schedule]
    assert kinds.count('rabbitmq') == kinds.count('postgresql') == 1
    kills = [at for at, what in schedule if what in chaos.DAEMONS]
    assert len(kills) >= 300 / 25 - 1
    gaps = [later - earlier for earlier, later in itertools.pairwise(kills)]
    assert min(gaps) >= 15 and max(gaps) <= 25
    assert max(at for at, _ in schedule) < 300


def test_only_a_503_while_a_server_was_down_is_allowed():
    faults = _faults()
    faults.windows = [(10.0, 20.0, 'rabbitmq')]
    ledger = Ledger()
    ledger.answers = [
        (12.0, 12.5, 'POST', 'create', 503),    # during the outage
        (5.0, 31.0, 'POST', 'attach', 503),     # sent before it, answered within the grace
        (40.0, 40.1, 'POST', 'create', 503),    # long after it
        (15.0, 15.1, 'POST', 'create', 500),    # a 500 is never allowed
        (15.0, 15.1, 'DELETE', 'delete', 202),
        (15.0, 15.1, 'DELETE', 'delete', None),  # nothing answered: not a 5xx
    ]
    bad, tolerated = chaos._bad_5xx(ledger, faults, started=0.0, grace=15)
    assert tolerated == 2
    assert [(b['at_s'], b['status'], b['faults']) for b in bad] == [
        (40.0, 503, []), (15.0, 500, ['rabbitmq'])]
