"""Transactions that run again when they lose a race (cinderlike-api writers).

Names of volume types and QoS specs have no unique constraint in Cinder's schema, so their
creates and renames read "is the name free?" and insert in one SERIALIZABLE transaction.
Writers whose row locks can cross another transaction's (quota rows, a type's encryption
against a type rename) run at the default isolation and are rerun when the database
aborts them as a deadlock's victim.
"""

import random
import time

import sqlalchemy as sa
from oslo_log import log as logging

LOG = logging.getLogger(__name__)

_ATTEMPTS = 20
# Full-jitter exponential backoff: attempt n sleeps up to min(_CAP, _BASE * 2**n) seconds.
_BASE = 0.01
_CAP = 1.0


def retryable(err: sa.exc.DBAPIError) -> bool:
    """A serialization failure or deadlock: the transaction may simply run again."""
    orig = err.orig
    if getattr(orig, 'pgcode', None) in ('40001', '40P01'):
        return True
    args = getattr(orig, 'args', ())
    # NOTE(mysql): 1213 deadlock, 1205 lock wait timeout, 1020 MariaDB snapshot conflict.
    if args and args[0] in (1020, 1205, 1213):
        return True
    return 'database is locked' in str(orig)


def backoff(attempt: int) -> None:
    """Sleep before running a lost transaction again (attempt 1, 2, ...).

    NOTE(backoff): losers that rerun at once meet again; InnoDB's gap locks make twenty
    concurrent type creates deadlock round after round unless their retries spread out.
    """
    time.sleep(random.uniform(0, min(_CAP, _BASE * 2 ** attempt)))  # noqa: S311 - jitter only


def run(db, work, *, serializable: bool = True, attempts: int = _ATTEMPTS):
    """Run *work(session)* in a transaction of its own (SERIALIZABLE unless told not),
    again while it loses a race, up to *attempts* times."""
    for attempt in range(1, attempts + 1):
        try:
            with db.writer() as session:
                if serializable:
                    session.connection(execution_options={'isolation_level': 'SERIALIZABLE'})
                return work(session)
        except sa.exc.DBAPIError as err:
            if attempt == attempts or not retryable(err):
                raise
            LOG.debug('Retrying a transaction that lost a race (attempt %d): %s', attempt, err)
        backoff(attempt)
