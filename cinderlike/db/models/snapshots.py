"""snapshots and their user metadata."""

import datetime

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from cinderlike.db.models.base import Base, DateTime, KeyValueMixin, TimestampMixin
from cinderlike.db.ordering import SortKey


class Snapshot(TimestampMixin, Base):
    """A point-in-time copy of a volume, kept on the volume's backend."""

    __tablename__ = 'snapshots'

    id: Mapped[str] = mapped_column(sa.String(36), primary_key=True)
    use_quota: Mapped[bool] = mapped_column(sa.Boolean, default=True, nullable=False)
    volume_id: Mapped[str] = mapped_column(
        sa.String(36), sa.ForeignKey('volumes.id'), nullable=False, index=True)
    user_id: Mapped[str | None] = mapped_column(sa.String(255))
    project_id: Mapped[str | None] = mapped_column(sa.String(255))
    status: Mapped[str | None] = mapped_column(sa.String(255))
    progress: Mapped[str | None] = mapped_column(sa.String(255))
    volume_size: Mapped[int | None] = mapped_column(sa.Integer)
    scheduled_at: Mapped[datetime.datetime | None] = mapped_column(DateTime)
    display_name: Mapped[str | None] = mapped_column(sa.String(255))
    display_description: Mapped[str | None] = mapped_column(sa.String(255))
    provider_location: Mapped[str | None] = mapped_column(sa.String(255))
    encryption_key_id: Mapped[str | None] = mapped_column(sa.String(36))
    volume_type_id: Mapped[str] = mapped_column(sa.String(36), nullable=False)
    group_snapshot_id: Mapped[str | None] = mapped_column(sa.String(36), index=True)
    provider_id: Mapped[str | None] = mapped_column(sa.String(255))
    provider_auth: Mapped[str | None] = mapped_column(sa.String(255))


# NOTE(listing): a project's page in the listings' default order, as the volumes' index
# (models/volumes.py) gives it.
sa.Index('snapshots_deleted_project_id_created_at_idx', Snapshot.deleted, Snapshot.project_id,
         SortKey(Snapshot.created_at, 'desc'), SortKey(Snapshot.id, 'desc'))


class SnapshotMetadata(KeyValueMixin, Base):
    """User metadata of a snapshot."""

    __tablename__ = 'snapshot_metadata'

    snapshot_id: Mapped[str] = mapped_column(
        sa.String(36), sa.ForeignKey('snapshots.id'), nullable=False, index=True)
