"""db/migration.py: revision arguments it refuses before touching the schema."""

import pytest

from cinderlike import exception
from cinderlike.db import migration


@pytest.fixture
def url(tmp_path):
    return f'sqlite:///{tmp_path}/cinderlike.sqlite'


def test_numeric_legacy_version_is_rejected(url):
    with pytest.raises(exception.DBMigrationError, match='sqlalchemy-migrate'):
        migration.upgrade(url, '142')
    assert migration.current(url) is None


def test_unknown_revision_is_a_migration_error(url):
    with pytest.raises(exception.DBMigrationError, match='nosuchrev'):
        migration.upgrade(url, 'nosuchrev')
    assert migration.current(url) is None


def test_upgrade_to_head_by_default_and_again_is_a_no_op(url):
    migration.upgrade(url)
    migration.upgrade(url, None)
    assert migration.current(url) == migration.head()
