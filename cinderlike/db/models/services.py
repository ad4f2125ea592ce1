"""services, clusters and workers: who runs, in which cluster, and what it has in flight."""

import datetime

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from cinderlike.db.models.base import Base, DateTime, TimestampMixin


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
    modified_at: Mapped[datetime.datetime | None] = mapped_column(DateTime)
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
    # Not Cinder's: what cleanup needs beyond the status (an extend's size and reservations).
    request: Mapped[dict | None] = mapped_column(sa.JSON)
