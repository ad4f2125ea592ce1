"""User message rows: written by the services through messages.py, read and deleted by
cinderlike-api, purged past `expires_at` by the scheduler's periodic task."""

import uuid

import sqlalchemy as sa

from cinderlike import exception
from cinderlike.db import listing
from cinderlike.db.conditional import update as cas_update
from cinderlike.db.models import Message, utcnow

# Columns a list may filter on with an exact match (Cinder's is_valid_model_filters).
FILTER_COLUMNS = frozenset(c.key for c in Message.__table__.columns)
PURGE_BATCH = 1000


def create(db, *, values: dict, session=None) -> Message:
    """Insert one message; the id is a new uuid."""
    with db.writer(session) as s:
        row = Message(id=str(uuid.uuid4()), deleted=False, **values)
        s.add(row)
        s.flush()
        return row


def _visible(project_id: str | None) -> list:
    where = [Message.deleted == sa.false()]
    if project_id is not None:
        where.append(Message.project_id == project_id)
    return where


def get(db, message_id: str, *, project_id: str | None, session=None) -> Message:
    """The message, seen from *project_id* (None: every project, as an admin sees them).

    :raises MessageNotFound:
    """
    with db.reader(session) as s:
        row = s.scalars(sa.select(Message).where(
            Message.id == message_id, *_visible(project_id))).first()
    if row is None:
        raise exception.MessageNotFound(message_id=message_id)
    return row


def get_all(db, *, project_id: str | None, filters: dict | None = None,
            marker: str | None = None, limit: int | None = None, offset: int = 0,
            sort: list[tuple[str, str | None]] | None = None, session=None) -> list[Message]:
    """Messages matching *filters* exactly, sorted, after *marker*, at most *limit*.

    A filter naming no column matches nothing (Cinder's behaviour).
    :raises MessageNotFound: for a marker that is not a visible message.
    :raises InvalidInput: for a bad sort key or direction.
    """
    filters = filters or {}
    if any(key not in FILTER_COLUMNS for key in filters):
        return []
    pairs = listing.sort_params(Message, sort)
    with db.reader(session) as s:
        stmt = sa.select(Message).where(
            *_visible(project_id), *(getattr(Message, k) == v for k, v in filters.items()))
        if marker is not None:
            stmt = stmt.where(listing.after_marker(
                pairs, get(db, marker, project_id=project_id, session=s)))
        stmt = listing.order_by(stmt, pairs).offset(offset or None).limit(limit)
        return list(s.scalars(stmt))


def delete(db, message_id: str, *, session=None) -> None:
    """Soft-delete one message. :raises MessageNotFound: when it is gone already."""
    with db.writer(session) as s:
        if not cas_update(s, Message, values={'deleted': True, 'deleted_at': utcnow()},
                          where=[Message.id == message_id, Message.deleted == sa.false()]):
            raise exception.MessageNotFound(message_id=message_id)


def purge_expired(db, *, now=None) -> int:
    """Delete messages past `expires_at`, in bounded batches; how many went."""
    now = now or utcnow()
    total = 0
    while True:
        with db.writer() as s:
            ids = s.scalars(sa.select(Message.id).where(Message.expires_at < now)
                            .limit(PURGE_BATCH)).all()
            if ids:
                s.execute(sa.delete(Message).where(Message.id.in_(ids)))
        total += len(ids)
        if len(ids) < PURGE_BATCH:
            return total
