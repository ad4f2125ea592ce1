"""The one compare-and-swap helper every status change and counter claim goes through."""

import sqlalchemy as sa

from cinderlike.db import engine as db_engine


def statement(model, *, values, where) -> sa.Update:
    """UPDATE model SET values WHERE all(where), its SET clauses in a MySQL-safe order."""
    # NOTE(mysql): MySQL and MariaDB evaluate SET assignments left to right, so in
    # `SET status='extending', previous_status=status` the copy would read the NEW status.
    # Assignments computed from columns (or bound later) go first; plain values cannot be
    # affected.
    pairs = sorted(values.items(), key=lambda kv: not is_sql(kv[1]))
    return sa.update(model).where(*where).ordered_values(*pairs)


def run(session, stmt: sa.Update, params: dict | None = None) -> int:
    """Execute a conditional UPDATE in *session*'s transaction; its rowcount (0 = lost).

    NOTE(perf): on the session's connection, so in its transaction, but without the ORM's
    bulk-update machinery (no instances are synchronised anyway); what the session holds
    unsent goes first, as its autoflush would.
    """
    return db_engine.execute(session, stmt, params).rowcount


def update(session, model, *, values, where) -> int:
    """UPDATE model SET values WHERE all(where); returns the rowcount (0 = lost the race).

    The caller decides what 0 means: its expected state was gone, so the change must not apply.
    """
    return run(session, statement(model, values=values, where=where))


def is_sql(value) -> bool:
    """True for a column or SQL expression (evaluated by the database, not bound)."""
    return isinstance(value, sa.ClauseElement) or hasattr(value, '__clause_element__')
