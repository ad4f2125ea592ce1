"""cinderlike-api: the availability zones a volume create may ask for, cached as Cinder's.

NOTE(cinder): Cinder's create path reads the zones through `list_availability_zones(
enable_cache=True)` and keeps them `az_cache_duration` seconds. Here a zone missing from the
kept set is looked up again before a create is refused, so a zone whose first volume
service has just started is accepted at once; only a zone whose last service was removed
stays known until the set is read again, as in Cinder.
"""

import time
import weakref

from cinderlike.db import services as db_services

# Database -> (monotonic time read, zones); per database, so apps on different databases
# (tests) keep their own.
_KEPT: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def known(conf, db, zone: str, *, session=None) -> frozenset[str]:
    """The zones of the volume services and `storage_availability_zone`; read again when
    older than `az_cache_duration` or when *zone* is not among them."""
    now = time.monotonic()
    kept = _KEPT.get(db)
    if kept is None or now - kept[0] >= conf.az_cache_duration or zone not in kept[1]:
        zones = db_services.availability_zones(db, binary=db_services.VOLUME_BINARY,
                                               session=session)
        zones.add(conf.storage_availability_zone)
        kept = _KEPT[db] = (now, frozenset(zones))
    return kept[1]
