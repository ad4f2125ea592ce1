"""cinderlike-api: snapshots rows → Cinder's summary, detail and list documents.

The list (`GET /snapshots`) shows v2's fields; create, show, update and the detail list add
what later microversions add, and show and detail add the extended attributes (progress,
project) when the caller's policy allows them.
"""

from cinderlike.api import microversions as mv
from cinderlike.api.views.common import timestamp
from cinderlike.db.models import Snapshot

_EXTENDED = 'os-extended-snapshot-attributes'



def summary(snapshot: Snapshot, metadata: dict) -> dict:
    """The fields of every snapshot view (Cinder's v2 summary)."""
    return {
        'id': snapshot.id, 'created_at': timestamp(snapshot.created_at),
        'updated_at': timestamp(snapshot.updated_at), 'name': snapshot.display_name,
        'description': snapshot.display_description, 'volume_id': snapshot.volume_id,
        'status': snapshot.status, 'size': snapshot.volume_size, 'metadata': metadata,
    }


def detail(snapshot: Snapshot, metadata: dict, *, version, extended: bool) -> dict:
    """The view of one snapshot at *version*; *extended* adds progress and project."""
    shown = summary(snapshot, metadata)
    if version.matches(mv.GROUP_SNAPSHOTS):
        shown['group_snapshot_id'] = snapshot.group_snapshot_id
    if version.matches(mv.SNAPSHOT_LIST_USER_ID):
        shown['user_id'] = snapshot.user_id
    if version.matches(mv.USE_QUOTA):
        shown['consumes_quota'] = snapshot.use_quota
    if extended:
        shown[f'{_EXTENDED}:project_id'] = snapshot.project_id
        shown[f'{_EXTENDED}:progress'] = snapshot.progress
    return shown
