"""SERIALIZABLE transactions that run again when they lose a race (cinderlike-api writers).

Names of volume types and QoS specs have no unique constraint in Cinder's schema, so their
creates and renames read "is the name free?" and insert in one SERIALIZABLE transaction.
"""

import sqlalchemy as sa
from oslo_log import log as logging

LOG = logging.getLogger(__name__)

_ATTEMPTS = 10


def _retryable(err: sa.exc.DBAPIError) -> bool:
    """A serialization failure or deadlock: the transaction may simply run again."""
    orig = err.orig
    if getattr(orig, 'pgcode', None) in ('40001', '40P01'):
        return True
    args = getattr(orig, 'args', ())
    # NOTE(mysql): 1213 deadlock, 1205 lock wait timeout, 1020 MariaDB snapshot conflict.
    if args and args[0] in (1020, 1205, 1213):
        return True
    return 'database is locked' in str(orig)


def run(db, work):
    """Run *work(session)* in a SERIALIZABLE transaction, again while it loses a race."""
    for attempt in range(_ATTEMPTS):
        try:
            with db.writer() as session:
                session.connection(execution_options={'isolation_level': 'SERIALIZABLE'})
                return work(session)
        except sa.exc.DBAPIError as err:
            if attempt + 1 == _ATTEMPTS or not _retryable(err):
                raise
            LOG.debug('Retrying a transaction that lost a race: %s', err)
