"""alembic environment, run by db/migration.py (`cinderlike-manage db sync`); no alembic.ini.

The caller opens the connection and passes it in `config.attributes['connection']`.
"""

from alembic import context

from cinderlike.db.models import Base


def run_migrations_online() -> None:
    connection = context.config.attributes['connection']
    # NOTE(sqlite): SQLite cannot ALTER most things; batch mode recreates the table instead.
    # NOTE(naming): target_metadata also hands its naming convention to op.create_table, so
    # unnamed constraints and indexes in revisions get the same names as in the models.
    context.configure(connection=connection, target_metadata=Base.metadata,
                      render_as_batch=connection.dialect.name == 'sqlite',
                      compare_type=True, compare_server_default=True)
    with context.begin_transaction():
        context.run_migrations()


run_migrations_online()
