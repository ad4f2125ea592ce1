"""cinderlike-api: group snapshot rows → the group_snapshot(s) documents (Cinder's views)."""

from cinderlike.api import microversions as mv
from cinderlike.api.views.common import timestamp


def summary(row, *, with_type: bool = True) -> dict:
    """Cinder's summary; listings drop group_type_id (it is for migrated CG snapshots)."""
    shown = {'id': row.id, 'name': row.name}
    if with_type:
        shown['group_type_id'] = row.group_type_id
    return shown


def detail(row, *, version, project: bool) -> dict:
    shown = {'id': row.id, 'group_id': row.group_id, 'group_type_id': row.group_type_id,
             'status': row.status, 'created_at': timestamp(row.created_at), 'name': row.name,
             'description': row.description}
    if project and version.matches(mv.GROUP_GROUPSNAPSHOT_PROJECT_ID):
        shown['project_id'] = row.project_id
    return shown


def collection(items: list[dict], *, next_href=None) -> dict:
    shown = {'group_snapshots': items}
    if next_href:
        shown['group_snapshot_links'] = [{'rel': 'next', 'href': next_href}]
    return shown
