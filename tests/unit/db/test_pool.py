"""db/pool.py: connections past max_pool_size kept while the load needs them, closed once idle
overflow_idle_time; the most recently returned handed out first; a bounded wait when all are
in use."""

import threading

import pytest
import sqlalchemy as sa

from cinderlike.db import pool as db_pool


class FakeConnection:
    """A DBAPI connection that notes its close."""

    def __init__(self, number):
        self.number = number
        self.closed = False

    def rollback(self):
        pass

    def close(self):
        self.closed = True


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


@pytest.fixture
def made():
    return []


@pytest.fixture
def clock():
    return Clock()


def _pool(made, clock, **kwargs):
    def creator():
        made.append(FakeConnection(len(made)))
        return made[-1]
    options = {'pool_size': 2, 'max_overflow': 3, 'overflow_idle_time': 60, **kwargs}
    return db_pool.KeepingPool(creator, clock=clock, **options)


def _burst(pool, width):
    """*width* connections checked out at once, then all handed back; their numbers."""
    held = [pool.connect() for _ in range(width)]
    numbers = [c.dbapi_connection.number for c in held]
    for connection in held:
        connection.close()
    return numbers


def test_bursts_past_the_kept_size_reuse_their_connections(made, clock):
    pool = _pool(made, clock)
    for _ in range(10):
        _burst(pool, 4)
        clock.now += 5
    assert len(made) == 4 and not any(c.closed for c in made)
    assert (pool.checkedin(), pool.checkedout()) == (4, 0)


def test_with_no_idle_time_overflow_is_closed_when_handed_back(made, clock):
    pool = _pool(made, clock, overflow_idle_time=0)
    for _ in range(3):
        _burst(pool, 4)
    # QueuePool's behaviour, oslo.db's: two of each burst's four are opened anew
    assert len(made) == 8
    assert [c.closed for c in made].count(False) == 2


def test_idle_overflow_is_closed_after_the_idle_time_the_kept_ones_stay(made, clock):
    pool = _pool(made, clock)
    _burst(pool, 4)
    clock.now += 59
    _burst(pool, 1)
    assert not any(c.closed for c in made)
    clock.now += 1
    _burst(pool, 1)
    # the two that waited 60 s go; the one just used and one more stay
    assert [c.number for c in made if c.closed] == [0, 1]
    assert pool.checkedin() == 2
    assert _burst(pool, 3) == [3, 2, 4]  # the newest first, then one made anew
    assert len(made) == 5


def test_the_connection_handed_back_last_is_handed_out_first(made, clock):
    pool = _pool(made, clock)
    first, second = pool.connect(), pool.connect()
    second.close()
    first.close()
    again = pool.connect()
    assert again.dbapi_connection.number == 0
    again.close()


def test_a_checkout_waits_for_a_connection_then_times_out(made, clock):
    pool = db_pool.KeepingPool(lambda: FakeConnection(0), pool_size=1, max_overflow=1,
                               timeout=0.2)
    held = [pool.connect(), pool.connect()]
    with pytest.raises(sa.exc.TimeoutError):
        pool.connect()
    threading.Timer(0.05, held[0].close).start()
    waited = pool.connect()  # woken by the hand-back
    assert waited.dbapi_connection is not None
    assert pool.checkedout() == 2


def test_a_failed_connect_gives_its_place_back(made, clock):
    failures = [RuntimeError('refused')]

    def creator():
        if failures:
            raise failures.pop()
        made.append(FakeConnection(len(made)))
        return made[-1]
    pool = db_pool.KeepingPool(creator, pool_size=1, max_overflow=0, timeout=0.1)
    with pytest.raises(RuntimeError):
        pool.connect()
    connection = pool.connect()  # the failed attempt holds no place
    assert connection.dbapi_connection.number == 0
    assert pool.checkedout() == 1


def test_dispose_closes_the_idle_ones_and_recreate_keeps_the_settings(made, clock):
    pool = _pool(made, clock)
    _burst(pool, 3)
    pool.dispose()
    assert all(c.closed for c in made) and pool.checkedin() == 0
    new = pool.recreate()
    assert isinstance(new, db_pool.KeepingPool)
    assert (new._keep, new._most, new._idle_time, new._clock) == (2, 5, 60, clock)
