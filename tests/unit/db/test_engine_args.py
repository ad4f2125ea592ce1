"""db/engine.py: the engine arguments a `[database] connection` URL gets, per driver."""

import pytest
import sqlalchemy as sa

from cinderlike import conf as conf_pkg
from cinderlike.db import engine
from cinderlike.db import pool as db_pool
from cinderlike.db.models import Volume


@pytest.mark.parametrize('url,ssl_disabled', [
    ('mysql+pymysql://u@db/cinder', True),
    ('mysql+pymysql://u@db/cinder?ssl_ca=/etc/ca.pem', None),
    # mysqlclient has no such argument: passing it made every connect fail (TypeError)
    ('mysql+mysqldb://u@db/cinder', None),
    ('mysql://u@db/cinder', None),
])
def test_only_pymysql_is_told_to_skip_its_tls_context(url, ssl_disabled):
    _url, args = engine._engine_args(url, None)
    assert args['isolation_level'] == 'READ COMMITTED'
    assert args.get('connect_args', {}).get('ssl_disabled') is ssl_disabled


def test_postgresql_gets_no_mysql_arguments():
    _url, args = engine._engine_args('postgresql+psycopg2://u@db/cinder', None)
    assert 'isolation_level' not in args and 'connect_args' not in args


def test_server_databases_get_the_keeping_pool_with_the_database_options():
    conf = conf_pkg.new_conf()
    conf([], default_config_files=[])
    conf.set_override('max_pool_size', 3, group='database')
    conf.set_override('max_overflow', 4, group='database')
    conf.set_override('overflow_idle_time', 7, group='database')
    _url, args = engine._engine_args('postgresql+psycopg2://u@db/cinder', conf.database)
    assert args['poolclass'] is db_pool.KeepingPool
    assert (args['pool_size'], args['max_overflow'], args['overflow_idle_time']) == (3, 4, 7)
    _url, args = engine._engine_args('mysql+pymysql://u@db/cinder', None)
    assert args['poolclass'] is db_pool.KeepingPool
    _url, args = engine._engine_args('sqlite:///:memory:', conf.database)
    assert args['poolclass'] is sa.pool.StaticPool


@pytest.mark.parametrize('url, ddl', [
    ('mysql+pymysql://', 'DATETIME(6)'), ('mariadb+pymysql://', 'DATETIME(6)'),
    ('postgresql+psycopg2://', 'TIMESTAMP WITHOUT TIME ZONE'), ('sqlite://', 'DATETIME')])
def test_timestamps_keep_microseconds_on_every_database(url, ddl):
    created = sa.schema.CreateTable(Volume.__table__).compile(
        dialect=sa.create_engine(url).dialect)
    assert f'created_at {ddl}' in str(created)
