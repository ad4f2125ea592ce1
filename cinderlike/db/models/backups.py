"""backups and their user metadata."""

import datetime

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from cinderlike.db.models.base import Base, DateTime, KeyValueMixin, TimestampMixin
from cinderlike.db.ordering import SortKey


class Backup(TimestampMixin, Base):
    """A copy of a volume's data in a backup repository, made by cinder-backup.

    No foreign key to volumes: a backup outlives the volume it was taken from.
    """

    __tablename__ = 'backups'
    __table_args__ = (
        sa.Index('backups_volume_id_data_timestamp_idx', 'volume_id', 'data_timestamp'),
    )

    id: Mapped[str] = mapped_column(sa.String(36), primary_key=True)
    volume_id: Mapped[str] = mapped_column(sa.String(36), nullable=False)
    user_id: Mapped[str | None] = mapped_column(sa.String(255))
    project_id: Mapped[str | None] = mapped_column(sa.String(255))
    host: Mapped[str | None] = mapped_column(sa.String(255))
    availability_zone: Mapped[str | None] = mapped_column(sa.String(255))
    display_name: Mapped[str | None] = mapped_column(sa.String(255))
    display_description: Mapped[str | None] = mapped_column(sa.String(255))
    container: Mapped[str | None] = mapped_column(sa.String(255))
    status: Mapped[str | None] = mapped_column(sa.String(255))
    fail_reason: Mapped[str | None] = mapped_column(sa.String(255))
    # Driver-specific locator, e.g. the object name prefix of a chunked backup.
    service_metadata: Mapped[str | None] = mapped_column(sa.String(255))
    # The backup driver that wrote it; restore refuses a backup written by another driver.
    service: Mapped[str | None] = mapped_column(sa.String(255))
    size: Mapped[int | None] = mapped_column(sa.Integer)
    # NOTE(object_count): 0 until the driver stored objects; tempest's backup schema wants an
    # integer from the first show on, while a backup (or an import) is still creating.
    object_count: Mapped[int | None] = mapped_column(sa.Integer, default=0)
    parent_id: Mapped[str | None] = mapped_column(sa.String(36))
    temp_volume_id: Mapped[str | None] = mapped_column(sa.String(36))
    temp_snapshot_id: Mapped[str | None] = mapped_column(sa.String(36))
    num_dependent_backups: Mapped[int] = mapped_column(sa.Integer, default=0, nullable=False)
    snapshot_id: Mapped[str | None] = mapped_column(sa.String(36))
    data_timestamp: Mapped[datetime.datetime | None] = mapped_column(DateTime)
    restore_volume_id: Mapped[str | None] = mapped_column(sa.String(36))
    encryption_key_id: Mapped[str | None] = mapped_column(sa.String(36))


# NOTE(listing): a project's page in the listings' default order, as the volumes' index
# (models/volumes.py) gives it.
sa.Index('backups_deleted_project_id_created_at_idx', Backup.deleted, Backup.project_id,
         SortKey(Backup.created_at, 'desc'), SortKey(Backup.id, 'desc'))


class BackupMetadata(KeyValueMixin, Base):
    """User metadata of a backup."""

    __tablename__ = 'backup_metadata'

    backup_id: Mapped[str] = mapped_column(
        sa.String(36), sa.ForeignKey('backups.id'), nullable=False, index=True)
