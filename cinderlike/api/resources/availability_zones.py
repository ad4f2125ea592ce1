"""cinderlike-api: GET /os-availability-zone — the zones of the volume services.

Any authenticated caller may list them (no policy check, as Cinder).
"""

import falcon

from cinderlike.api.views import availability_zones as view
from cinderlike.db import services as db_services


def zone_availability(services) -> dict[str, bool]:
    """Zone name -> available: a zone is available while any of its services is enabled."""
    zones: dict[str, bool] = {}
    for service in services:
        zones[service.availability_zone] = (zones.get(service.availability_zone, False)
                                            or not service.disabled)
    return zones


class AvailabilityZones:
    """GET /os-availability-zone."""

    def __init__(self, db):
        self._db = db

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        # NOTE(cache): Cinder caches zones for `az_cache_duration` only on the volume
        # create path; the listing always reads the services table, and so does this.
        rows = db_services.get_all(self._db, binary=db_services.VOLUME_BINARY)
        resp.media = view.index(zone_availability(rows))
