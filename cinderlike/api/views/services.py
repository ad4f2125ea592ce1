"""cinderlike-api: services rows → the os-services list and update documents."""

import datetime

from cinderlike.api import microversions as mv
from cinderlike.api.views.common import timestamp
from cinderlike.db import services as db_services
from cinderlike.db.models import Service, utcnow


def _shown_updated_at(service: Service, now: datetime.datetime) -> str | None:
    # NOTE(modified_at): Cinder shows the enable/disable time instead of the last
    # heartbeat when that change is the more recent event.
    updated_at = service.updated_at
    last = service.updated_at or service.created_at
    if service.modified_at and last is not None:
        if abs((now - last).total_seconds()) >= abs((now - service.modified_at).total_seconds()):
            updated_at = service.modified_at
    return timestamp(updated_at)


def item(service: Service, *, version, down_time: int, now: datetime.datetime,
         backend_states: dict | None = None) -> dict:
    """One entry of GET /os-services at microversion *version*; *backend_states* (3.49)
    maps host@backend to the state its pools report."""
    shown = {
        'binary': service.binary,
        'host': service.host,
        'zone': service.availability_zone,
        'status': 'disabled' if service.disabled else 'enabled',
        'state': 'up' if db_services.is_up(service, down_time=down_time, now=now) else 'down',
        'updated_at': _shown_updated_at(service, now),
    }
    if backend_states is not None and service.binary == db_services.VOLUME_BINARY:
        shown['backend_state'] = backend_states.get(service.host)
    if version.matches(mv.CLUSTER_SUPPORT):
        shown['cluster'] = service.cluster_name
    shown['disabled_reason'] = service.disabled_reason
    if service.binary == db_services.VOLUME_BINARY:
        shown['replication_status'] = service.replication_status
        shown['active_backend_id'] = service.active_backend_id
        shown['frozen'] = service.frozen
    return shown


def index(services: list[Service], *, version, down_time: int,
          backend_states: dict | None = None) -> dict:
    """{"services": [...]}, every state computed against one `now`."""
    now = utcnow()
    return {'services': [item(s, version=version, down_time=down_time, now=now,
                              backend_states=backend_states) for s in services]}


def update(*, host: str, service: str, binary: str, disabled: bool,
           disabled_reason: str | None = None, with_reason: bool = False) -> dict:
    """The PUT /os-services/{action} answer; `service`/`binary` echo the request's keys."""
    shown = {'host': host, 'service': service, 'binary': binary,
             'status': 'disabled' if disabled else 'enabled', 'disabled': disabled}
    if with_reason:
        shown['disabled_reason'] = disabled_reason
    return shown
