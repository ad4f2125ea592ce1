"""Engine and transactions for `[database] connection`: one Database object per process.

Callers compose work in one transaction by passing the session a `writer()` yields; every
db/ function opens its own transaction when given none.
"""

import contextlib
import time

import sqlalchemy as sa
from oslo_log import log as logging
from sqlalchemy import event, orm

from cinderlike.db import pool as db_pool

LOG = logging.getLogger(__name__)
# Errors of a database that cannot be reached (refused, reset, restarted): the
# transaction did not commit and may be run again. MySQL's deadlock is an OperationalError
# too, and is as safe to run again.
UNREACHABLE = (sa.exc.OperationalError, sa.exc.InterfaceError)


def _engine_args(url, dbconf):
    url = sa.engine.make_url(url)
    args = {'echo': bool(dbconf and dbconf.connection_debug)}
    if url.get_backend_name() == 'sqlite':
        # NOTE(sqlite): the embedded default shares one file between the threads of
        # cinderlike-all, and tests share ':memory:' across threads with a static pool.
        args['connect_args'] = {'check_same_thread': False, 'timeout': 30}
        if url.database in (None, '', ':memory:'):
            args['poolclass'] = sa.pool.StaticPool
        return url, args
    connect_args = {}
    args['poolclass'] = db_pool.KeepingPool  # with its defaults without [database]
    if dbconf is not None:
        args.update(pool_size=dbconf.max_pool_size, max_overflow=dbconf.max_overflow,
                    pool_timeout=dbconf.pool_timeout,
                    overflow_idle_time=dbconf.overflow_idle_time,
                    pool_recycle=dbconf.connection_recycle_time)
        # NOTE(outage): a server that drops packets would hold a request for the TCP
        # connect timeout (minutes); both drivers name this connect argument alike.
        if 'connect_timeout' not in url.query:
            connect_args['connect_timeout'] = dbconf.connect_timeout
    if url.get_backend_name() == 'mysql':
        # NOTE(pymysql): PyMySQL >= 1.2 builds a TLS context per connection unless told
        # otherwise, ~50 ms of CPU each; TLS is asked for explicitly in the URL when wanted.
        if (url.get_driver_name() == 'pymysql' and 'ssl' not in url.query
                and 'ssl_ca' not in url.query):
            connect_args['ssl_disabled'] = True
        args['isolation_level'] = 'READ COMMITTED'
    if connect_args:
        args['connect_args'] = connect_args
    return url, args


def _sqlite_pragmas(dbapi_conn, _record):
    cursor = dbapi_conn.cursor()
    cursor.execute('PRAGMA foreign_keys=ON')
    cursor.execute('PRAGMA journal_mode=WAL')
    cursor.execute('PRAGMA busy_timeout=30000')
    cursor.close()


def execute(session, stmt, params=None) -> sa.CursorResult:
    """Run the Core statement *stmt* on *session*'s connection, in its transaction, after what
    the session holds unsent (as the ORM's autoflush would); its result.

    NOTE(perf): the statements of the hot paths are built once and bound at execution; the
    ORM session's own execute() would add its event and bulk machinery to each of them.
    """
    session.flush()
    return session.connection().execute(stmt, params)


# A pooled connection idle longer than this is pinged before it is handed out again.
PING_AFTER_IDLE_S = 1.0


def _note_checkin(_dbapi_conn, record):
    record.info['checked_in_at'] = time.monotonic()


def _ping_if_idle(dialect):
    """Checkout listener: SQLAlchemy's pre-ping, for connections idle PING_AFTER_IDLE_S+.

    NOTE(pre_ping): a ping on every checkout is one more round trip per transaction (seven
    per POST /volumes) that the database server answers too; a connection back in the pool
    for less than a second was just working, so only idle ones are checked. A dead one
    invalidates the pool, as pool_pre_ping does.
    """
    def checkout(dbapi_conn, record, _proxy):
        since = record.info.get('checked_in_at')
        if since is None or time.monotonic() - since < PING_AFTER_IDLE_S:
            return  # new (just connected) or just used
        try:
            dialect.do_ping(dbapi_conn)
        except dialect.loaded_dbapi.Error as error:
            if not dialect.is_disconnect(error, dbapi_conn, None):
                raise
            raise sa.exc.InvalidatePoolError() from error
    return checkout


def import_driver(url) -> None:
    """Import the driver of the database at *url* (and its SQLAlchemy dialect), connecting
    to nothing: for a process that forks its workers, each of which makes its own engine.

    NOTE(fork): imported in the parent, the driver's libraries (psycopg2-binary's own libpq,
    OpenSSL and Kerberos; the cryptography package PyMySQL imports) are loaded once, their
    pages shared by the workers, instead of once in each worker: an API worker held about
    3 MB less after a benchmark run (benchmarks/README.md, twenty-first pass).
    """
    sa.engine.make_url(url).get_dialect().import_dbapi()


class Database:
    """Engine plus session factory; passed to every db/ function as its first argument."""

    def __init__(self, url, *, dbconf=None):
        # (retries, first interval, largest interval) of retrying(); none without a
        # [database] section (one-shot tools and tests)
        self.retry = ((dbconf.db_max_retries, dbconf.db_retry_interval,
                       dbconf.db_max_retry_interval) if dbconf is not None else (0, 1, 1))
        url, args = _engine_args(url, dbconf)
        self.engine = sa.create_engine(url, **args)
        if self.engine.dialect.name == 'sqlite':
            event.listen(self.engine, 'connect', _sqlite_pragmas)
        else:
            event.listen(self.engine, 'checkin', _note_checkin)
            event.listen(self.engine, 'checkout', _ping_if_idle(self.engine.dialect))
        self._sessions = orm.sessionmaker(bind=self.engine, expire_on_commit=False)

    @classmethod
    def from_conf(cls, conf):
        """The database of `[database] connection`, pooled as `[database]` says."""
        return cls(conf.database.connection, dbconf=conf.database)

    @property
    def dialect(self) -> str:
        return self.engine.dialect.name

    @contextlib.contextmanager
    def writer(self, session=None):
        """A session in a transaction that commits on success; reuses *session* if given."""
        if session is not None:
            yield session
            return
        with self._sessions() as new, new.begin():
            yield new

    @contextlib.contextmanager
    def reader(self, session=None):
        """A session for reads; its rows stay usable after the block (expire_on_commit off)."""
        if session is not None:
            yield session
            return
        with self._sessions() as new, new.begin():
            yield new

    def retrying(self, work, *, what: str):
        """work() (which runs its own transactions), run again while the database cannot
        be reached, backing off up to `[database] db_max_retries` times.

        NOTE(outage): a daemon that finished an operation's work while the database was
        restarting must still write the outcome, or the row stays in its transitional
        status while the daemon lives on (no restart recovery comes for it).
        """
        retries, interval, largest = self.retry
        attempt = 0
        while True:
            try:
                return work()
            except UNREACHABLE as error:
                if attempt == retries:
                    raise
                attempt += 1
                LOG.warning('%s: the database is unreachable (%s); trying again in %s s',
                            what, type(error.orig or error).__name__, interval)
                time.sleep(interval)
                interval = min(interval * 2, largest)

    def dispose(self):
        self.engine.dispose()
