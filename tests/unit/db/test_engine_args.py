"""db/engine.py: the engine arguments a `[database] connection` URL gets, per driver."""

import pytest

from cinderlike.db import engine


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
