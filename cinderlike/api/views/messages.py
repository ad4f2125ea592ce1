"""cinderlike-api: user message rows → Cinder's message and message-list documents."""

import urllib.parse

from cinderlike import messages
from cinderlike.api.views.common import timestamp
from cinderlike.db.models import Message


def _links(base: str, project_id: str, message_id: str) -> list[dict]:
    return [
        {'rel': 'self', 'href': f'{base}/v3/{project_id}/messages/{message_id}'},
        {'rel': 'bookmark', 'href': f'{base}/{project_id}/messages/{message_id}'},
    ]


def detail(row: Message, *, base: str, project_id: str) -> dict:
    """One message; resource_type/resource_uuid only when set (as Cinder)."""
    shown = {
        'id': row.id, 'event_id': row.event_id,
        'user_message': messages.user_message(row.action_id, row.detail_id),
        'message_level': row.message_level, 'created_at': timestamp(row.created_at),
        'guaranteed_until': timestamp(row.expires_at), 'request_id': row.request_id,
        'links': _links(base, project_id, row.id),
    }
    if row.resource_type:
        shown['resource_type'] = row.resource_type
    if row.resource_uuid:
        shown['resource_uuid'] = row.resource_uuid
    return shown


def collection(rows: list[Message], *, base: str, project_id: str, params: dict,
               limit: int | None) -> dict:
    """{"messages": [...], "messages_links": [next]} — next when a full page came back."""
    shown: dict = {'messages': [detail(r, base=base, project_id=project_id) for r in rows]}
    if rows and limit is not None and len(rows) == limit:
        query = urllib.parse.urlencode(dict(params, marker=rows[-1].id), doseq=True)
        shown['messages_links'] = [
            {'rel': 'next', 'href': f'{base}/v3/{project_id}/messages?{query}'}]
    return shown
