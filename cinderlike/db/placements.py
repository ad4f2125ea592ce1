"""The scheduler's writes to a volume row: place it on a pool with its claim, or give up on it.

Claim and placement share one transaction, so a committed claim always has its volume on the
pool (the capacity check's invariant) and a volume deleted meanwhile keeps no claim.
"""

import enum

import sqlalchemy as sa
from oslo_log import log as logging

from cinderlike.db import conditional
from cinderlike.db import pools as db_pools
from cinderlike.db import replication as db_replication
from cinderlike.db import volumes as db_volumes
from cinderlike.db.models import Volume, utcnow
from cinderlike.states import volumes as volume_states

LOG = logging.getLogger(__name__)


class Placed(enum.Enum):
    PLACED = 'placed'
    FULL = 'full'          # the claim failed: try the next pool
    GONE = 'gone'          # the volume is no longer `creating` and unplaced: stop


class _Full(Exception):
    """Rolls back the placement when the pool cannot take the volume."""


# NOTE(perf): built once; every placement runs it.
_PLACE = sa.update(Volume).where(
    *db_volumes.unplaced(), Volume.id == sa.bindparam('volume_id')).values(
    host=sa.bindparam('host'), cluster_name=sa.bindparam('cluster_name'),
    scheduled_at=sa.bindparam('now'))


def place_volume(db, *, volume_id: str, pool: str, size_gb: float, host: str,
                 cluster_name: str | None, max_gb: float | None = None) -> Placed:
    """Claim *size_gb* on *pool* and set the volume's host/cluster_name, all or nothing.

    The volume must still be `creating` with no host (a duplicate or late cast places
    nothing twice). A backend frozen meanwhile counts as full. Run again while the database
    cannot be reached (Database.retrying).

    NOTE(outage): a placement that fails on a dead connection leaves its create unplaced
    until the lost-operation sweep, so it is tried again. Its `scheduled_at` is its token: a
    retry that does not place the volume (an earlier attempt's COMMIT went through and its
    answer was lost, so the volume is no longer unplaced, or its claim filled the pool)
    finds the volume placed at that very time and reports it placed; its own claim, if
    any, was rolled back. So the create is cast, and its capacity counted, once.
    """
    params = {'volume_id': volume_id, 'host': host, 'cluster_name': cluster_name,
              'now': utcnow()}
    attempts = 0

    def attempt() -> Placed:
        nonlocal attempts
        attempts += 1
        outcome = _claim_and_place(db, params, pool=pool, size_gb=size_gb, max_gb=max_gb)
        if outcome is not Placed.PLACED and attempts > 1 and _placed_by(db, params):
            return Placed.PLACED
        return outcome

    outcome = db.retrying(attempt, what=f'Placing volume {volume_id}')
    if outcome is Placed.PLACED:
        LOG.info('Volume %(id)s placed on %(host)s', {'id': volume_id, 'host': host})
    elif outcome is Placed.GONE:
        LOG.info('Volume %s is no longer waiting for a backend; not placed', volume_id)
    return outcome


def _claim_and_place(db, params: dict, *, pool: str, size_gb: float,
                     max_gb: float | None) -> Placed:
    """place_volume's transaction, once.

    NOTE(hot_row): every placement on a pool waits for its row, locked from the claim's
    UPDATE to the COMMIT; the volume's own row is placed first, so the pool's row is held
    for the claim and the COMMIT only, not for the placement's round trip as well.
    """
    host, cluster_name = params['host'], params['cluster_name']
    try:
        with db.writer() as s:
            if not s.connection().execute(_PLACE, params).rowcount:
                return Placed.GONE
            # NOTE(frozen): the scheduler's view of the services is up to a second old
            # (host_manager SERVICES_TTL); the freeze itself is read by the claim's UPDATE,
            # so no volume asked for after a freeze lands on that backend.
            if not db_pools.claim(db, pool=pool, size_gb=size_gb, max_gb=max_gb, session=s,
                                  unfrozen=(host, cluster_name)):
                # Only the log tells a frozen backend from a full pool.
                if db_replication.is_frozen(db, host=host, cluster_name=cluster_name,
                                            session=s):
                    LOG.info('Backend %s is frozen; volume %s not placed there', host,
                             params['volume_id'])
                raise _Full()
    except _Full:
        return Placed.FULL
    return Placed.PLACED


def _placed_by(db, params: dict) -> bool:
    """Whether the placement of *params* (its host and `scheduled_at`) is in the row."""
    with db.reader() as s:
        return s.execute(sa.select(Volume.id).where(
            Volume.id == params['volume_id'], Volume.host == params['host'],
            Volume.scheduled_at == params['now'])).first() is not None


def place_managed(db, *, volume_id: str, host: str, cluster_name: str | None) -> bool:
    """Give a `managing` volume the pool the scheduler checked (its capacity is counted
    once the driver found its size); False when it is no longer `managing`."""
    with db.writer() as s:
        placed = conditional.update(
            s, Volume, values={'host': host, 'cluster_name': cluster_name,
                               'scheduled_at': utcnow()},
            where=[Volume.id == volume_id, Volume.deleted == sa.false(),
                   Volume.status == volume_states.Status.MANAGING])
    if placed:
        LOG.info('Volume %(id)s to manage placed on %(host)s', {'id': volume_id, 'host': host})
    return bool(placed)


def locations(db, *, volume_ids: list[str]) -> list[tuple[str | None, str | None]]:
    """(host, cluster_name) of those live volumes (Same/DifferentBackendFilter)."""
    with db.reader() as s:
        return [tuple(row) for row in s.execute(
            sa.select(Volume.host, Volume.cluster_name)
            .where(Volume.id.in_(volume_ids), Volume.deleted == sa.false()))]


def counts(db, *, hosts: list[str]) -> dict[str, int]:
    """{'host@backend#pool': live volumes there} for *hosts* (VolumeNumberWeigher), one query."""
    with db.reader() as s:
        return dict(s.execute(
            sa.select(Volume.host, sa.func.count())
            .where(Volume.host.in_(hosts), Volume.deleted == sa.false())
            .group_by(Volume.host)).all())
