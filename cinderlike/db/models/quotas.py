"""Quota limits per project and per class, usages, and reservations awaiting commit."""

import datetime

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from cinderlike.db.models.base import Base, DateTime, TimestampMixin

# NOTE(quota): per-volume-type resources are '<resource>_<type name>', so a type name of 255
# characters needs more than 255; Cinder widened these columns to 300.
RESOURCE_LENGTH = 300


class Quota(TimestampMixin, Base):
    """A project's own limit for one resource; NULL hard_limit = unlimited."""

    __tablename__ = 'quotas'

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    project_id: Mapped[str | None] = mapped_column(sa.String(255), index=True)
    resource: Mapped[str] = mapped_column(sa.String(RESOURCE_LENGTH), nullable=False)
    hard_limit: Mapped[int | None] = mapped_column(sa.Integer)


class QuotaClass(TimestampMixin, Base):
    """A quota class's limit for one resource; class 'default' is seeded by the migration."""

    __tablename__ = 'quota_classes'

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    class_name: Mapped[str | None] = mapped_column(sa.String(255), index=True)
    resource: Mapped[str | None] = mapped_column(sa.String(RESOURCE_LENGTH))
    hard_limit: Mapped[int | None] = mapped_column(sa.Integer)


class QuotaUsage(TimestampMixin, Base):
    """What a project uses and has reserved of one resource.

    The unique (project_id, resource, race_preventer) stops two requests from creating the
    same usage row at once; race_preventer is NULL on deleted rows.
    """

    __tablename__ = 'quota_usages'
    __table_args__ = (
        sa.Index('quota_usage_project_resource_idx', 'project_id', 'resource'),
        sa.UniqueConstraint('project_id', 'resource', 'race_preventer'),
    )

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    project_id: Mapped[str | None] = mapped_column(sa.String(255))
    resource: Mapped[str | None] = mapped_column(sa.String(RESOURCE_LENGTH))
    in_use: Mapped[int] = mapped_column(sa.Integer, nullable=False)
    reserved: Mapped[int] = mapped_column(sa.Integer, nullable=False)
    until_refresh: Mapped[int | None] = mapped_column(sa.Integer)
    race_preventer: Mapped[bool | None] = mapped_column(sa.Boolean)


class Reservation(TimestampMixin, Base):
    """A reserved delta of one usage, committed or rolled back by its uuid; expires at `expire`."""

    __tablename__ = 'reservations'
    __table_args__ = (
        sa.Index('reservations_deleted_expire_idx', 'deleted', 'expire'),
        sa.Index('reservations_deleted_uuid_idx', 'deleted', 'uuid'),
    )

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    uuid: Mapped[str] = mapped_column(sa.String(36), nullable=False)
    usage_id: Mapped[int | None] = mapped_column(
        sa.Integer, sa.ForeignKey('quota_usages.id'), index=True)
    project_id: Mapped[str | None] = mapped_column(sa.String(255), index=True)
    resource: Mapped[str | None] = mapped_column(sa.String(RESOURCE_LENGTH))
    delta: Mapped[int] = mapped_column(sa.Integer, nullable=False)
    expire: Mapped[datetime.datetime | None] = mapped_column(DateTime)
