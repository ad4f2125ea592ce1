"""The statements that differ by database, built from the package of the database in use.

NOTE(memory): `sqlalchemy.dialects.<name>` imports every driver module of that database.
An API on PostgreSQL that imported MySQL's and SQLite's too held 1.6 MB more per process,
one on MariaDB 2.9 MB more for PostgreSQL's and SQLite's; the engine imports its own.
"""

import importlib


def module(dialect_name: str):
    """SQLAlchemy's package of *dialect_name* (MariaDB's is MySQL's)."""
    return importlib.import_module(
        'sqlalchemy.dialects.' + ('mysql' if dialect_name == 'mariadb' else dialect_name))


def insert(dialect_name: str, table):
    """*dialect_name*'s INSERT of *table*, with its upsert clauses (`on_conflict_do_*` on
    PostgreSQL and SQLite, `on_duplicate_key_update` on MySQL and MariaDB)."""
    return module(dialect_name).insert(table)
