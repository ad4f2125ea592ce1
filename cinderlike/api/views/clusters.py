"""cinderlike-api: cluster summaries → the clusters API documents (summary and detail)."""

import datetime

from cinderlike.api import microversions as mv
from cinderlike.api.views.common import timestamp
from cinderlike.db.clusters import Summary

REPLICATION_FIELDS = ('replication_status', 'frozen', 'active_backend_id')


def _time(value: datetime.datetime | None) -> str:
    """Cinder shows a missing time as ''."""
    return timestamp(value, missing='')


def summary(found: Summary, *, version) -> dict:
    """name, binary, state, status (and replication_status from 3.26)."""
    cluster = found.cluster
    shown = {'name': cluster.name, 'binary': cluster.binary,
             'state': 'up' if found.is_up else 'down',
             'status': 'disabled' if cluster.disabled else 'enabled'}
    if version.matches(mv.REPLICATION_CLUSTER):
        shown['replication_status'] = cluster.replication_status
    return shown


def detail(found: Summary, *, version) -> dict:
    """The summary plus hosts, heartbeat, times and reason (all replication fields 3.26)."""
    cluster = found.cluster
    shown = summary(found, version=version)
    shown.update(num_hosts=found.num_hosts, num_down_hosts=found.num_down_hosts,
                 last_heartbeat=_time(found.last_heartbeat),
                 created_at=_time(cluster.created_at), updated_at=_time(cluster.updated_at),
                 disabled_reason=cluster.disabled_reason)
    if version.matches(mv.REPLICATION_CLUSTER):
        shown.update({field: getattr(cluster, field) for field in REPLICATION_FIELDS})
    return shown


def index(found: list[Summary], *, version, with_detail: bool) -> dict:
    build = detail if with_detail else summary
    return {'clusters': [build(item, version=version) for item in found]}


def updated(found: Summary, *, version, disabled_reason: str | None) -> dict:
    """The enable/disable answer: the summary with the reason just set."""
    return {'cluster': dict(summary(found, version=version), disabled_reason=disabled_reason)}
