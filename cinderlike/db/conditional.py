"""The one compare-and-swap helper every status change and counter claim goes through."""

import sqlalchemy as sa


def update(session, model, *, values, where) -> int:
    """UPDATE model SET values WHERE all(where); returns the rowcount (0 = lost the race).

    The caller decides what 0 means: its expected state was gone, so the change must not apply.
    """
    stmt = (sa.update(model).where(*where).values(**values)
            .execution_options(synchronize_session=False))
    return session.execute(stmt).rowcount
