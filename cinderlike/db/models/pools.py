"""Per-pool capacity: the limits a backend last reported and the capacity promised to volumes.

Not a Cinder table. ARCHITECTURE.md "Capacity": schedulers claim here with one conditional
UPDATE, so any number of them can never promise more than `capacity_limit_gb`.
"""

import datetime

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from cinderlike.db.models.base import Base, DateTime, TimestampMixin


class Pool(TimestampMixin, Base):
    """One storage pool 'host@backend#pool'.

    `allocated_capacity_gb` is what volumes placed here have claimed; the claim is
    `allocated + size <= capacity_limit_gb OR capacity_limit_gb IS NULL`. `capacity_limit_gb`
    is computed from the reported limits (NULL = not limited). `report_seq` orders the
    backend's capability reports so an older one never overwrites a newer one.
    """

    __tablename__ = 'pools'
    # NOTE(pools): race_preventer is 0 while the row lives and the row id once deleted, so the
    # name is unique among live rows only (the clusters table does the same).
    __table_args__ = (sa.UniqueConstraint('name', 'race_preventer'),)

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    name: Mapped[str] = mapped_column(sa.String(255), nullable=False)
    backend: Mapped[str] = mapped_column(sa.String(255), nullable=False, index=True)
    cluster_name: Mapped[str | None] = mapped_column(sa.String(255))
    race_preventer: Mapped[int] = mapped_column(sa.Integer, default=0, nullable=False)
    # NULL total = the backend reported 'unknown' or 'infinite'.
    total_capacity_gb: Mapped[float | None] = mapped_column(sa.Double)
    free_capacity_gb: Mapped[float | None] = mapped_column(sa.Double)
    reserved_percentage: Mapped[int] = mapped_column(sa.Integer, default=0, nullable=False)
    thin_provisioning: Mapped[bool] = mapped_column(sa.Boolean, default=False, nullable=False)
    # A number like '20.0' or 'auto', as Cinder's max_over_subscription_ratio option.
    max_over_subscription_ratio: Mapped[str] = mapped_column(
        sa.String(20), default='20.0', nullable=False)
    capacity_limit_gb: Mapped[float | None] = mapped_column(sa.Double)
    allocated_capacity_gb: Mapped[float] = mapped_column(sa.Double, default=0, nullable=False)
    provisioned_capacity_gb: Mapped[float] = mapped_column(sa.Double, default=0, nullable=False)
    report_seq: Mapped[int] = mapped_column(sa.BigInteger, default=0, nullable=False)
    reported_at: Mapped[datetime.datetime | None] = mapped_column(DateTime)
