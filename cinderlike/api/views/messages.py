"""cinderlike-api: user message rows → Cinder's message and message-list documents."""

from cinderlike import messages
from cinderlike.api.views.common import Links, timestamp
from cinderlike.db.models import Message


def detail(row: Message, *, base: str, project_id: str) -> dict:
    """One message; resource_type/resource_uuid only when set (as Cinder)."""
    shown = {
        'id': row.id, 'event_id': row.event_id,
        'user_message': messages.user_message(row.action_id, row.detail_id),
        'message_level': row.message_level, 'created_at': timestamp(row.created_at),
        'guaranteed_until': timestamp(row.expires_at), 'request_id': row.request_id,
        'links': Links(base=base, project_id=project_id).item(row.id, 'messages'),
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
    if limit is None:  # NOTE(links): no paging before 3.5, so no next link either.
        return shown
    next_href = Links(base=base, project_id=project_id).page_after('messages', params, rows,
                                                                   limit=limit)
    if next_href:
        shown['messages_links'] = [{'rel': 'next', 'href': next_href}]
    return shown
