"""SQLAlchemy 2 declarative models: the whole schema, matching Cinder's tables and columns.

Timestamps are naive UTC, as Cinder stores them. Soft-deleted rows keep `deleted=True`.
"""

import datetime

import sqlalchemy as sa
from oslo_utils import timeutils
from sqlalchemy import orm
from sqlalchemy.orm import Mapped, mapped_column


def utcnow() -> datetime.datetime:
    return timeutils.utcnow().replace(tzinfo=None)


class Base(orm.DeclarativeBase):
    """Declarative base; naming convention keeps constraint names equal on every database."""

    metadata = sa.MetaData(naming_convention={
        'ix': 'ix_%(table_name)s_%(column_0_N_name)s',
        'uq': 'uq_%(table_name)s_%(column_0_N_name)s',
        'fk': 'fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s',
        'pk': 'pk_%(table_name)s',
    })


class TimestampMixin:
    """created_at / updated_at / deleted_at / deleted, as on every Cinder table."""

    created_at: Mapped[datetime.datetime | None] = mapped_column(sa.DateTime, default=utcnow)
    updated_at: Mapped[datetime.datetime | None] = mapped_column(sa.DateTime, onupdate=utcnow)
    deleted_at: Mapped[datetime.datetime | None] = mapped_column(sa.DateTime)
    deleted: Mapped[bool] = mapped_column(sa.Boolean, default=False, nullable=False)


class Service(TimestampMixin, Base):
    """One row per running scheduler, volume backend or backup service (never the API)."""

    __tablename__ = 'services'
    __table_args__ = (sa.Index('ix_services_host_binary', 'host', 'binary'),)

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    uuid: Mapped[str | None] = mapped_column(sa.String(36), unique=True)
    host: Mapped[str | None] = mapped_column(sa.String(255))
    binary: Mapped[str | None] = mapped_column(sa.String(255))
    topic: Mapped[str | None] = mapped_column(sa.String(255))
    cluster_name: Mapped[str | None] = mapped_column(sa.String(255))
    report_count: Mapped[int] = mapped_column(sa.Integer, default=0, nullable=False)
    disabled: Mapped[bool] = mapped_column(sa.Boolean, default=False, nullable=False)
    disabled_reason: Mapped[str | None] = mapped_column(sa.String(255))
    availability_zone: Mapped[str | None] = mapped_column(sa.String(255), default='cinder')
    modified_at: Mapped[datetime.datetime | None] = mapped_column(sa.DateTime)
    rpc_current_version: Mapped[str | None] = mapped_column(sa.String(36))
    object_current_version: Mapped[str | None] = mapped_column(sa.String(36))
    replication_status: Mapped[str | None] = mapped_column(sa.String(36), default='not-capable')
    active_backend_id: Mapped[str | None] = mapped_column(sa.String(255))
    frozen: Mapped[bool] = mapped_column(sa.Boolean, default=False, nullable=False)


class Cluster(TimestampMixin, Base):
    """An Active-Active group of volume services sharing one backend."""

    __tablename__ = 'clusters'
    __table_args__ = (sa.UniqueConstraint('name', 'binary', 'race_preventer'),)

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    name: Mapped[str] = mapped_column(sa.String(255), nullable=False)
    binary: Mapped[str] = mapped_column(sa.String(255), nullable=False)
    disabled: Mapped[bool] = mapped_column(sa.Boolean, default=False, nullable=False)
    disabled_reason: Mapped[str | None] = mapped_column(sa.String(255))
    # 0 while the row lives; set to the id on delete so a new cluster may reuse the name.
    race_preventer: Mapped[int] = mapped_column(sa.Integer, default=0, nullable=False)
    replication_status: Mapped[str | None] = mapped_column(sa.String(36), default='not-capable')
    active_backend_id: Mapped[str | None] = mapped_column(sa.String(255))
    frozen: Mapped[bool] = mapped_column(sa.Boolean, default=False, nullable=False)


class Worker(TimestampMixin, Base):
    """An in-flight cleanable operation; the service that owns it settles it if it dies.

    `epoch` is bumped whenever ownership changes hands, so a status write made under an
    older epoch (a presumed-dead owner waking up) can be refused.
    """

    __tablename__ = 'workers'
    __table_args__ = (sa.UniqueConstraint('resource_type', 'resource_id'),)

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    resource_type: Mapped[str] = mapped_column(sa.String(40), nullable=False)
    resource_id: Mapped[str] = mapped_column(sa.String(36), nullable=False)
    status: Mapped[str] = mapped_column(sa.String(255), nullable=False)
    service_id: Mapped[int | None] = mapped_column(sa.ForeignKey('services.id'), index=True)
    race_preventer: Mapped[int] = mapped_column(sa.Integer, default=0, nullable=False)
    epoch: Mapped[int] = mapped_column(sa.Integer, default=0, nullable=False)
