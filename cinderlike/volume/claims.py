"""cinderlike-volume: give capacity claims back to the pools row a volume was placed on.

The scheduler claims when it places (db/pools.py `claim`); the volume service releases when a
create fails or is rescheduled away, an extend fails, or a launched volume is deleted.
"""

from cinderlike.db import pools as db_pools


def pool_of(volume) -> str | None:
    """The pools row of a volume: '<cluster or host>#<pool>', the scheduler's backend id."""
    return volume.cluster_name or volume.host


def release(db, volume, size_gb: float, *, session=None) -> bool:
    """Give *size_gb* of *volume*'s pool back (compose with the status change's *session*)."""
    return db_pools.release(db, pool=pool_of(volume), size_gb=size_gb, session=session)
