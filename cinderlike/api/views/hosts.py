"""cinderlike-api: os-hosts documents — the host list and one host's resource usage."""

from cinderlike.api.views.common import timestamp
from cinderlike.db import services as db_services


def listed(service, *, down_time: int, now) -> dict:
    """One entry of GET /os-hosts (Cinder's field names, dashes included)."""
    alive = db_services.is_up(service, down_time=down_time, now=now)
    return {'host_name': service.host, 'service': service.topic,
            'zone': service.availability_zone,
            'service-status': 'available' if alive else 'unavailable',
            'service-state': 'disabled' if service.disabled else 'enabled',
            'last-update': timestamp(service.updated_at)}


def _resource(host: str, usage, project: str) -> dict:
    # NOTE(strings): Cinder shows every count and size as a string.
    return {'resource': {'host': host, 'project': project,
                         'volume_count': str(usage.volume_count),
                         'total_volume_gb': str(usage.total_volume_gb),
                         'snapshot_count': str(usage.snapshot_count),
                         'total_snapshot_gb': str(usage.total_snapshot_gb)}}


def shown(host: str, total, projects) -> dict:
    """GET /os-hosts/{host}: the `(total)` row, then one row per project."""
    return {'host': [_resource(host, total, '(total)'),
                     *(_resource(host, usage, usage.project_id) for usage in projects)]}
