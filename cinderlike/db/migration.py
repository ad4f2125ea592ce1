"""alembic upgrade and current-revision wrappers behind `cinderlike-manage db sync|version`.

The migrations ship inside the package (db/migrations), and the alembic configuration is
built here in code, so an installed cinderlike needs no alembic.ini.
"""

import contextlib
import os

from alembic import command
from alembic import config as alembic_config
from alembic import script as alembic_script
from alembic import util as alembic_util
from alembic.runtime import migration as alembic_migration

from cinderlike import exception
from cinderlike.db import engine

MIGRATIONS_DIR = os.path.join(os.path.dirname(__file__), 'migrations')


def _config(connection=None) -> alembic_config.Config:
    config = alembic_config.Config()
    config.set_main_option('script_location', MIGRATIONS_DIR)
    config.attributes['connection'] = connection
    return config


@contextlib.contextmanager
def _connection(db_url):
    database = engine.Database(db_url)
    try:
        with database.engine.connect() as connection:
            if database.dialect == 'sqlite':
                # NOTE(sqlite): batch migrations copy and drop tables; foreign key checks
                # would refuse the drop. The pragma only takes effect outside a transaction.
                connection.exec_driver_sql('PRAGMA foreign_keys=OFF')
                connection.commit()
            yield connection
    finally:
        database.dispose()


def head() -> str:
    """The newest revision this code knows."""
    return alembic_script.ScriptDirectory.from_config(_config()).get_current_head()


def upgrade(db_url: str, revision: str | None = 'head') -> None:
    """Upgrade the database at *db_url* to *revision* (default: head).

    :raises DBMigrationError: for a numeric sqlalchemy-migrate-era version, an unknown
        revision, or a failed migration.
    """
    revision = revision or 'head'
    if revision.isdigit():
        raise exception.DBMigrationError(
            reason=f'{revision} looks like a sqlalchemy-migrate version; database versions '
                   'are alembic revisions now')
    with _connection(db_url) as connection:
        try:
            with connection.begin():
                command.upgrade(_config(connection), revision)
        except alembic_util.CommandError as exc:
            raise exception.DBMigrationError(reason=str(exc)) from exc


def current(db_url: str) -> str | None:
    """The revision the database at *db_url* is at; None when it was never migrated."""
    with _connection(db_url) as connection:
        return alembic_migration.MigrationContext.configure(connection).get_current_revision()
