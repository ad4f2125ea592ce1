"""Volume transfers between projects: the offer and the hash of its authorization key."""

import datetime

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from cinderlike.db.models.base import Base, DateTime, TimestampMixin


class Transfer(TimestampMixin, Base):
    """An open (or accepted) transfer of one volume; the key itself is never stored."""

    __tablename__ = 'transfers'

    id: Mapped[str] = mapped_column(sa.String(36), primary_key=True)
    volume_id: Mapped[str] = mapped_column(
        sa.String(36), sa.ForeignKey('volumes.id'), nullable=False, index=True)
    display_name: Mapped[str | None] = mapped_column(sa.String(255))
    salt: Mapped[str | None] = mapped_column(sa.String(255))
    crypt_hash: Mapped[str | None] = mapped_column(sa.String(255))
    expires_at: Mapped[datetime.datetime | None] = mapped_column(DateTime)
    no_snapshots: Mapped[bool] = mapped_column(sa.Boolean, default=False, nullable=False)
    source_project_id: Mapped[str | None] = mapped_column(sa.String(255))
    destination_project_id: Mapped[str | None] = mapped_column(sa.String(255))
    accepted: Mapped[bool] = mapped_column(sa.Boolean, default=False, nullable=False)
