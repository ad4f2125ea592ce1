"""volumes and what hangs off them: user metadata, admin metadata and attachments."""

import datetime

import sqlalchemy as sa
from sqlalchemy import orm
from sqlalchemy.orm import Mapped, mapped_column

from cinderlike.db.models.base import Base, DateTime, KeyValueMixin, TimestampMixin
from cinderlike.db.ordering import SortKey


class Volume(TimestampMixin, Base):
    """A block device; `host` is 'host@backend#pool' once scheduled."""

    __tablename__ = 'volumes'
    __table_args__ = (
        sa.Index('volumes_service_uuid_idx', 'service_uuid', 'deleted'),
        sa.Index('volumes_deleted_host_idx', 'deleted', 'host'),
        # NOTE(cluster): Cinder has no such indexes; A/A cleanup and recovery look volumes up
        # by cluster and by transitional status.
        sa.Index('volumes_deleted_cluster_name_idx', 'deleted', 'cluster_name'),
        sa.Index('volumes_deleted_status_idx', 'deleted', 'status'),
    )

    id: Mapped[str] = mapped_column(sa.String(36), primary_key=True)
    # Backend name indirection: after a migration the data lives under the other volume's id.
    _name_id: Mapped[str | None] = mapped_column('_name_id', sa.String(36))
    use_quota: Mapped[bool] = mapped_column(sa.Boolean, default=True, nullable=False)
    user_id: Mapped[str | None] = mapped_column(sa.String(255))
    project_id: Mapped[str | None] = mapped_column(sa.String(255))
    snapshot_id: Mapped[str | None] = mapped_column(sa.String(36))
    cluster_name: Mapped[str | None] = mapped_column(sa.String(255))
    host: Mapped[str | None] = mapped_column(sa.String(255))
    size: Mapped[int | None] = mapped_column(sa.Integer)
    availability_zone: Mapped[str | None] = mapped_column(sa.String(255))
    status: Mapped[str | None] = mapped_column(sa.String(255))
    attach_status: Mapped[str | None] = mapped_column(sa.String(255))
    migration_status: Mapped[str | None] = mapped_column(sa.String(255))
    scheduled_at: Mapped[datetime.datetime | None] = mapped_column(DateTime)
    launched_at: Mapped[datetime.datetime | None] = mapped_column(DateTime)
    terminated_at: Mapped[datetime.datetime | None] = mapped_column(DateTime)
    display_name: Mapped[str | None] = mapped_column(sa.String(255))
    display_description: Mapped[str | None] = mapped_column(sa.String(255))
    provider_location: Mapped[str | None] = mapped_column(sa.String(256))
    provider_auth: Mapped[str | None] = mapped_column(sa.String(256))
    provider_geometry: Mapped[str | None] = mapped_column(sa.String(255))
    provider_id: Mapped[str | None] = mapped_column(sa.String(255))
    volume_type_id: Mapped[str] = mapped_column(sa.String(36), nullable=False)
    source_volid: Mapped[str | None] = mapped_column(sa.String(36))
    encryption_key_id: Mapped[str | None] = mapped_column(sa.String(36))
    group_id: Mapped[str | None] = mapped_column(sa.String(36), index=True)
    bootable: Mapped[bool] = mapped_column(sa.Boolean, default=False, nullable=False)
    multiattach: Mapped[bool] = mapped_column(sa.Boolean, default=False, nullable=False)
    replication_status: Mapped[str | None] = mapped_column(sa.String(255))
    replication_extended_status: Mapped[str | None] = mapped_column(sa.String(255))
    replication_driver_data: Mapped[str | None] = mapped_column(sa.String(255))
    previous_status: Mapped[str | None] = mapped_column(sa.String(255))
    service_uuid: Mapped[str | None] = mapped_column(sa.String(36), sa.ForeignKey('services.uuid'))
    shared_targets: Mapped[bool | None] = mapped_column(sa.Boolean, default=True)
    # NOTE(perf): no column; loaded only by a read that asks for it
    # (db/qos_specs.WITH_LIVE_TYPE_QOS), None otherwise.
    live_type_qos: Mapped[str | None] = orm.query_expression()
    # NOTE(perf): no column either; its type's name, loaded only by a read that asks for it
    # (db/volumes.WITH_TYPE_NAME), None otherwise.
    type_name: Mapped[str | None] = orm.query_expression()

    @property
    def name_id(self) -> str:
        """The id the backend knows this volume's data by."""
        return self._name_id or self.id


# NOTE(listing): a project's page in the listings' default order (created_at, then id, both
# descending; db/listing.py) is read from this index, not sorted out of all the project's
# volumes. Its NULLs are where the listings put them, so PostgreSQL's index gives that order
# too; descending, so that the page after a marker is found by a forward scan, in which
# MariaDB tests the marker's condition on the index entry (a backward scan fetched every
# row it passed first).
sa.Index('volumes_deleted_project_id_created_at_idx', Volume.deleted, Volume.project_id,
         SortKey(Volume.created_at, 'desc'), SortKey(Volume.id, 'desc'))


class VolumeMetadata(KeyValueMixin, Base):
    """User metadata of a volume."""

    __tablename__ = 'volume_metadata'

    volume_id: Mapped[str] = mapped_column(
        sa.String(36), sa.ForeignKey('volumes.id'), nullable=False, index=True)


class VolumeAdminMetadata(KeyValueMixin, Base):
    """Admin-only metadata of a volume: readonly, attached_mode, extend_new_size, ..."""

    __tablename__ = 'volume_admin_metadata'

    volume_id: Mapped[str] = mapped_column(
        sa.String(36), sa.ForeignKey('volumes.id'), nullable=False, index=True)


class VolumeAttachment(TimestampMixin, Base):
    """One attachment of a volume to an instance or host; connection data as JSON text."""

    __tablename__ = 'volume_attachment'

    id: Mapped[str] = mapped_column(sa.String(36), primary_key=True)
    volume_id: Mapped[str] = mapped_column(
        sa.String(36), sa.ForeignKey('volumes.id'), nullable=False, index=True)
    attached_host: Mapped[str | None] = mapped_column(sa.String(255))
    instance_uuid: Mapped[str | None] = mapped_column(sa.String(36))
    mountpoint: Mapped[str | None] = mapped_column(sa.String(255))
    attach_time: Mapped[datetime.datetime | None] = mapped_column(DateTime)
    detach_time: Mapped[datetime.datetime | None] = mapped_column(DateTime)
    attach_mode: Mapped[str | None] = mapped_column(sa.String(36))
    attach_status: Mapped[str | None] = mapped_column(sa.String(255))
    connection_info: Mapped[str | None] = mapped_column(sa.Text)
    connector: Mapped[str | None] = mapped_column(sa.Text)
