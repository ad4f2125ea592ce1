"""The connection pool of a PostgreSQL or MariaDB database: `max_pool_size` connections kept,
up to `max_overflow` more while the load needs them.

NOTE(churn): SQLAlchemy's QueuePool (oslo.db's, so Cinder's) closes a connection past
`max_pool_size` as soon as it is handed back while the pool holds `max_pool_size` idle ones,
so a load that swings around `max_pool_size` opens and closes connections all the time: a
500-volume benchmark run opened 150 connections where 40 were ever in use at once, each
about 4 ms of CPU (most of it the server's, which forks a backend per connection on
PostgreSQL). Here a connection past `max_pool_size` is closed once it has been idle for
`overflow_idle_time` seconds; the most recently returned connection is handed out first, so
the ones the load no longer needs are the ones that grow idle.
"""

import collections
import threading
import time

from sqlalchemy import exc, pool


class KeepingPool(pool.Pool):
    """At most *pool_size* + *max_overflow* connections; idle ones past *pool_size* closed
    after *overflow_idle_time* seconds (0: as soon as they come back); a checkout waits up
    to *timeout* seconds for one when all are in use (sqlalchemy.exc.TimeoutError, as
    QueuePool's)."""

    # NOTE(signature): create_engine() hands a pool class only the arguments its __init__
    # names positionally (SQLAlchemy reads them from the signature), so none is keyword-only.
    def __init__(self, creator, pool_size: int = 5, max_overflow: int = 10,
                 timeout: float = 30.0, overflow_idle_time: float = 60.0,
                 clock=time.monotonic, **kw):
        super().__init__(creator, **kw)
        self._keep = pool_size
        self._most = pool_size + max_overflow
        self._timeout = timeout
        self._idle_time = overflow_idle_time
        self._clock = clock
        self._cond = threading.Condition()
        self._idle = collections.deque()  # (returned at, record); the newest on the right
        self._open = 0  # connections made and not closed, idle or in use

    def _do_get(self):
        deadline = None
        with self._cond:
            while not self._idle and self._open >= self._most:
                now = self._clock()
                deadline = now + self._timeout if deadline is None else deadline
                if now >= deadline or not self._cond.wait(deadline - now):
                    raise exc.TimeoutError(
                        f'Connection pool limit of {self._keep} kept and '
                        f'{self._most - self._keep} overflow reached, connection timed out, '
                        f'timeout {self._timeout:.2f}', code='3o7r')
            if self._idle:
                return self._idle.pop()[1]
            self._open += 1
        try:
            return self._create_connection()
        except BaseException:
            self._closed(1)
            raise

    def _do_return_conn(self, record) -> None:
        now = self._clock()
        with self._cond:
            self._idle.append((now, record))
            self._cond.notify()
            stale = []
            while (self._open - len(stale) > self._keep and self._idle
                   and now - self._idle[0][0] >= self._idle_time):
                stale.append(self._idle.popleft()[1])
        for record in stale:
            try:
                record.close()
            finally:
                self._closed(1)

    def _closed(self, count: int) -> None:
        with self._cond:
            self._open -= count
            self._cond.notify(count)

    def dispose(self) -> None:
        with self._cond:
            idle = [record for _, record in self._idle]
            self._idle.clear()
        for record in idle:
            record.close()
        self._closed(len(idle))
        self.logger.info('Pool disposed. %s', self.status())

    def recreate(self) -> 'KeepingPool':
        self.logger.info('Pool recreating')
        return self.__class__(
            self._creator, pool_size=self._keep, max_overflow=self._most - self._keep,
            timeout=self._timeout, overflow_idle_time=self._idle_time, clock=self._clock,
            recycle=self._recycle, echo=self.echo, logging_name=self._orig_logging_name,
            reset_on_return=self._reset_on_return, pre_ping=self._pre_ping,
            _dispatch=self.dispatch, dialect=self._dialect)

    def checkedin(self) -> int:
        return len(self._idle)

    def checkedout(self) -> int:
        return self._open - len(self._idle)

    def status(self) -> str:
        return (f'Pool kept: {self._keep}  most: {self._most}  open: {self._open}  '
                f'idle: {self.checkedin()}  checked out: {self.checkedout()}')
