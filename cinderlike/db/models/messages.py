"""User messages: why an asynchronous operation failed, readable through the messages API."""

import datetime

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from cinderlike.db.models.base import Base, DateTime, TimestampMixin


class Message(TimestampMixin, Base):
    """One user message; rows past `expires_at` are purged by a periodic task."""

    __tablename__ = 'messages'

    id: Mapped[str] = mapped_column(sa.String(36), primary_key=True)
    project_id: Mapped[str] = mapped_column(sa.String(255), nullable=False)
    request_id: Mapped[str | None] = mapped_column(sa.String(255))
    resource_type: Mapped[str | None] = mapped_column(sa.String(36))
    resource_uuid: Mapped[str | None] = mapped_column(sa.String(255))
    event_id: Mapped[str] = mapped_column(sa.String(255), nullable=False)
    message_level: Mapped[str] = mapped_column(sa.String(255), nullable=False)
    expires_at: Mapped[datetime.datetime | None] = mapped_column(DateTime, index=True)
    detail_id: Mapped[str | None] = mapped_column(sa.String(10))
    action_id: Mapped[str | None] = mapped_column(sa.String(10))
