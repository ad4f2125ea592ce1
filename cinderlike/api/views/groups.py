"""cinderlike-api: group rows → the group(s) documents, per microversion (Cinder's views).

`volume_types` (and `volumes` with list_volume, 3.25) come in as maps group id → ids.
"""

from cinderlike.api import microversions as mv
from cinderlike.api.views.common import timestamp


def summary(row) -> dict:
    return {'id': row.id, 'name': row.name}


def detail(row, *, version, volume_types: list[str], volumes: list[str] | None,
           project: bool) -> dict:
    shown = {'id': row.id, 'status': row.status, 'availability_zone': row.availability_zone,
             'created_at': timestamp(row.created_at), 'name': row.name,
             'description': row.description, 'group_type': row.group_type_id,
             'volume_types': volume_types}
    if version.matches(mv.GROUP_SNAPSHOTS):
        shown['group_snapshot_id'] = row.group_snapshot_id
        shown['source_group_id'] = row.source_group_id
    if volumes is not None:
        shown['volumes'] = volumes
    if version.matches(mv.GROUP_REPLICATION):
        shown['replication_status'] = row.replication_status
    if project and version.matches(mv.GROUP_GROUPSNAPSHOT_PROJECT_ID):
        shown['project_id'] = row.project_id
    return shown


def collection(items: list[dict], *, next_href=None) -> dict:
    shown = {'groups': items}
    if next_href:
        shown['group_links'] = [{'rel': 'next', 'href': next_href}]
    return shown
