"""The one compare-and-swap helper every status change and counter claim goes through."""

import sqlalchemy as sa


def update(session, model, *, values, where) -> int:
    """UPDATE model SET values WHERE all(where); returns the rowcount (0 = lost the race).

    The caller decides what 0 means: its expected state was gone, so the change must not apply.
    """
    # NOTE(mysql): MySQL and MariaDB evaluate SET assignments left to right, so in
    # `SET status='extending', previous_status=status` the copy would read the NEW status.
    # Assignments computed from columns go first; plain values cannot be affected.
    pairs = sorted(values.items(), key=lambda kv: not _is_sql(kv[1]))
    stmt = sa.update(model).where(*where).ordered_values(*pairs)
    # NOTE(perf): on the session's connection, so in its transaction, but without the ORM's
    # bulk-update machinery (no instances are synchronised anyway); what the session holds
    # unsent goes first, as its autoflush would.
    session.flush()
    return session.connection().execute(stmt).rowcount


def _is_sql(value) -> bool:
    """True for a column or SQL expression (evaluated by the database, not bound)."""
    return isinstance(value, sa.ClauseElement) or hasattr(value, '__clause_element__')
