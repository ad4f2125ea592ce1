"""Generic volume groups: group types (specs, project access), groups, the volume types a
group allows, and group snapshots (each member snapshot points back with group_snapshot_id)."""

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from cinderlike.db.models.base import Base, KeyValueMixin, TimestampMixin


class GroupType(TimestampMixin, Base):
    """A group type; `default_cgsnapshot_type` is seeded by the groups migration."""

    __tablename__ = 'group_types'

    id: Mapped[str] = mapped_column(sa.String(36), primary_key=True)
    name: Mapped[str] = mapped_column(sa.String(255), nullable=False)
    description: Mapped[str | None] = mapped_column(sa.String(255))
    is_public: Mapped[bool] = mapped_column(sa.Boolean, default=True, nullable=False)


class GroupTypeSpecs(KeyValueMixin, Base):
    """One group spec of a group type (e.g. consistent_group_snapshot_enabled)."""

    __tablename__ = 'group_type_specs'

    group_type_id: Mapped[str] = mapped_column(
        sa.String(36), sa.ForeignKey('group_types.id'), nullable=False, index=True)


class GroupTypeProjects(TimestampMixin, Base):
    """A project's access to a private group type; `deleted` is the row id once revoked."""

    __tablename__ = 'group_type_projects'
    __table_args__ = (sa.UniqueConstraint('group_type_id', 'project_id', 'deleted'),)

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    group_type_id: Mapped[str | None] = mapped_column(
        sa.String(36), sa.ForeignKey('group_types.id'))
    project_id: Mapped[str | None] = mapped_column(sa.String(255))
    deleted: Mapped[int] = mapped_column(sa.Integer, default=0, nullable=False)


class Group(TimestampMixin, Base):
    """A generic volume group: its volumes live on one backend (`host`)."""

    __tablename__ = 'groups'

    id: Mapped[str] = mapped_column(sa.String(36), primary_key=True)
    user_id: Mapped[str | None] = mapped_column(sa.String(255))
    project_id: Mapped[str | None] = mapped_column(sa.String(255), index=True)
    cluster_name: Mapped[str | None] = mapped_column(sa.String(255))
    host: Mapped[str | None] = mapped_column(sa.String(255))
    availability_zone: Mapped[str | None] = mapped_column(sa.String(255))
    name: Mapped[str | None] = mapped_column(sa.String(255))
    description: Mapped[str | None] = mapped_column(sa.String(255))
    group_type_id: Mapped[str | None] = mapped_column(sa.String(36), index=True)
    status: Mapped[str | None] = mapped_column(sa.String(255))
    group_snapshot_id: Mapped[str | None] = mapped_column(sa.String(36))
    source_group_id: Mapped[str | None] = mapped_column(sa.String(36))
    replication_status: Mapped[str | None] = mapped_column(sa.String(255))


class GroupVolumeTypeMapping(TimestampMixin, Base):
    """One volume type a group's volumes may have."""

    __tablename__ = 'group_volume_type_mapping'

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    volume_type_id: Mapped[str] = mapped_column(
        sa.String(36), sa.ForeignKey('volume_types.id'), nullable=False, index=True)
    group_id: Mapped[str] = mapped_column(
        sa.String(36), sa.ForeignKey('groups.id'), nullable=False, index=True)


class GroupSnapshot(TimestampMixin, Base):
    """A snapshot of every member of a group, taken as one operation."""

    __tablename__ = 'group_snapshots'

    id: Mapped[str] = mapped_column(sa.String(36), primary_key=True)
    group_id: Mapped[str] = mapped_column(
        sa.String(36), sa.ForeignKey('groups.id'), nullable=False, index=True)
    user_id: Mapped[str | None] = mapped_column(sa.String(255))
    project_id: Mapped[str | None] = mapped_column(sa.String(255), index=True)
    name: Mapped[str | None] = mapped_column(sa.String(255))
    description: Mapped[str | None] = mapped_column(sa.String(255))
    status: Mapped[str | None] = mapped_column(sa.String(255))
    group_type_id: Mapped[str | None] = mapped_column(sa.String(36))
