"""Migrated, throw-away databases on each real server: per module (`db`) or per test."""

import pytest

from cinderlike.db import migration
from cinderlike.db.engine import Database
from tests.fixtures.database import fresh_database

SERVERS = [pytest.param('postgresql', marks=pytest.mark.postgresql),
           pytest.param('mysql', marks=pytest.mark.mysql)]


def _migrated(request):
    server_url = request.getfixturevalue(f'{request.param}_server_url')
    with fresh_database(server_url) as url:
        migration.upgrade(url)
        database = Database(url)
        yield database
        database.dispose()


@pytest.fixture(scope='module', params=SERVERS)
def db(request):
    """A database at the alembic head on PostgreSQL, then on MariaDB, shared by a module."""
    yield from _migrated(request)


@pytest.fixture(params=SERVERS)
def fresh_db(request):
    """The same, new for each test: for tests whose rows would collide (one pool name)."""
    yield from _migrated(request)
