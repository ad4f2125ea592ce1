"""A fresh in-memory SQLite database with the whole schema, per test."""

import pytest

from cinderlike.db import engine
from cinderlike.db.models import Base


@pytest.fixture
def db():
    database = engine.Database('sqlite://')
    Base.metadata.create_all(database.engine)
    yield database
    database.dispose()
