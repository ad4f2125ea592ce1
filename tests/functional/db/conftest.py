"""A migrated, throw-away database on each real server, shared by a test module."""

import pytest

from cinderlike.db import migration
from cinderlike.db.engine import Database
from tests.fixtures.database import fresh_database

SERVERS = [pytest.param('postgresql', marks=pytest.mark.postgresql),
           pytest.param('mysql', marks=pytest.mark.mysql)]


@pytest.fixture(scope='module', params=SERVERS)
def db(request):
    """A database at the alembic head on PostgreSQL, then on MariaDB."""
    server_url = request.getfixturevalue(f'{request.param}_server_url')
    with fresh_database(server_url) as url:
        migration.upgrade(url)
        database = Database(url)
        yield database
        database.dispose()
