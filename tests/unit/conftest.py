"""Fixtures every unit test may use: an in-memory database with the whole schema, a conf."""

import pytest

from cinderlike import conf as cl_conf
from cinderlike.conf import api as api_conf
from tests.fixtures import daemons


@pytest.fixture
def db():
    """SQLite in memory with every table (models, not migrations: those have their own tests)."""
    database = daemons.make_db()
    yield database
    database.dispose()


@pytest.fixture
def conf():
    """A parsed ConfigOpts with every cinderlike option at its default."""
    config = cl_conf.new_conf()
    config([])
    # noauth callers here name projects such as `admin`, which Cinder's default refuses.
    config.set_override('project_id_regex', api_conf.ANY_PROJECT_ID_REGEX)
    return config
