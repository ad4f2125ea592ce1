"""The pool on a real server: a dropped idle connection is replaced; connections past the
kept size are reused across bursts."""

import sqlalchemy as sa

from cinderlike import conf as conf_pkg
from cinderlike.db import engine

KILL = {
    'postgresql': 'SELECT pg_terminate_backend({pid})',
    'mysql': 'KILL {pid}',
}
BACKEND_PID = {
    'postgresql': 'SELECT pg_backend_pid()',
    'mysql': 'SELECT CONNECTION_ID()',
}


def _pid(conn) -> int:
    return conn.exec_driver_sql(BACKEND_PID[conn.dialect.name]).scalar()


def test_idle_connection_dropped_by_the_server_is_replaced(db, monkeypatch):
    monkeypatch.setattr(engine, 'PING_AFTER_IDLE_S', 0.0)
    database = engine.Database(db.engine.url.render_as_string(hide_password=False))
    try:
        victim, killer = database.engine.connect(), database.engine.connect()
        first = _pid(victim)
        victim.close()  # back in the pool, idle
        killer.exec_driver_sql(KILL[database.dialect].format(pid=first))
        killer.close()
        for _ in range(2):  # the dead connection is pinged, the pool renewed
            with database.reader() as s:
                assert s.execute(sa.text('SELECT 1')).scalar() == 1
                assert _pid(s.connection()) != first
    finally:
        database.dispose()


def test_a_connection_used_just_now_is_not_pinged(db, monkeypatch):
    monkeypatch.setattr(engine, 'PING_AFTER_IDLE_S', 3600.0)
    database = engine.Database(db.engine.url.render_as_string(hide_password=False))
    pings = []
    monkeypatch.setattr(database.engine.dialect, 'do_ping',
                        lambda conn: pings.append(conn) or True)
    try:
        for _ in range(3):
            with database.reader() as s:
                s.execute(sa.text('SELECT 1'))
        assert pings == []
        monkeypatch.setattr(engine, 'PING_AFTER_IDLE_S', 0.0)
        with database.reader() as s:
            s.execute(sa.text('SELECT 1'))
        assert len(pings) == 1
    finally:
        database.dispose()


def test_bursts_past_the_kept_size_reuse_the_servers_sessions(db):
    """Three at once with one kept: the server sees three sessions over five bursts (an
    oslo.db pool would have opened two more per burst)."""
    database = engine.Database(db.engine.url.render_as_string(hide_password=False),
                               dbconf=_dbconf(max_pool_size=1, max_overflow=2))
    sessions = set()
    try:
        for _ in range(5):
            held = [database.engine.connect() for _ in range(3)]
            sessions.update(_pid(c) for c in held)
            for connection in held:
                connection.close()
        assert len(sessions) == 3
    finally:
        database.dispose()


def _dbconf(**values):
    conf = conf_pkg.new_conf()
    conf([], default_config_files=[])
    for name, value in values.items():
        conf.set_override(name, value, group='database')
    return conf.database
