"""volume types, their extra specs and project access, per-project default types, QoS specs."""

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from cinderlike.db.models.base import Base, KeyValueMixin, TimestampMixin


class QualityOfServiceSpecs(KeyValueMixin, Base):
    """QoS specs as an adjacency list, as Cinder keeps them.

    The root row is `key='QoS_Specs_Name', value=<name>, specs_id=NULL`; its children point to it
    with `specs_id` and hold `consumer` and the spec keys.
    """

    __tablename__ = 'quality_of_service_specs'

    id: Mapped[str] = mapped_column(sa.String(36), primary_key=True)
    specs_id: Mapped[str | None] = mapped_column(
        sa.String(36), sa.ForeignKey('quality_of_service_specs.id'), index=True)


class VolumeType(TimestampMixin, Base):
    """A volume type; `__DEFAULT__` is created by the initial migration."""

    __tablename__ = 'volume_types'

    id: Mapped[str] = mapped_column(sa.String(36), primary_key=True)
    name: Mapped[str | None] = mapped_column(sa.String(255))
    description: Mapped[str | None] = mapped_column(sa.String(255))
    qos_specs_id: Mapped[str | None] = mapped_column(
        sa.String(36), sa.ForeignKey('quality_of_service_specs.id'), index=True)
    is_public: Mapped[bool] = mapped_column(sa.Boolean, default=True, nullable=False)


class VolumeTypeExtraSpecs(KeyValueMixin, Base):
    """One extra spec of a volume type (matched by the scheduler's capabilities filter)."""

    __tablename__ = 'volume_type_extra_specs'

    volume_type_id: Mapped[str] = mapped_column(
        sa.String(36), sa.ForeignKey('volume_types.id'), nullable=False, index=True)


class VolumeTypeProjects(TimestampMixin, Base):
    """A project's access to a private volume type.

    `deleted` is an integer here, as in Cinder: 0 while the row lives, the row id once deleted,
    so the unique constraint allows granting access again after a revoke.
    """

    __tablename__ = 'volume_type_projects'
    __table_args__ = (sa.UniqueConstraint('volume_type_id', 'project_id', 'deleted'),)

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    volume_type_id: Mapped[str | None] = mapped_column(
        sa.String(36), sa.ForeignKey('volume_types.id'))
    project_id: Mapped[str | None] = mapped_column(sa.String(255))
    deleted: Mapped[int] = mapped_column(sa.Integer, default=0, nullable=False)


class DefaultVolumeType(TimestampMixin, Base):
    """The default volume type of one project (API 3.62)."""

    __tablename__ = 'default_volume_types'

    project_id: Mapped[str] = mapped_column(sa.String(255), primary_key=True)
    volume_type_id: Mapped[str | None] = mapped_column(
        sa.String(36), sa.ForeignKey('volume_types.id'), index=True)


class Encryption(TimestampMixin, Base):
    """The encryption of a volume type (Cinder's `encryption` table): one live row per type.

    `control_location` says who encrypts (`front-end`: the attaching host through os-brick,
    `back-end`: the storage); cinderlike stores and serves the specs and never encrypts data.
    """

    __tablename__ = 'encryption'

    encryption_id: Mapped[str] = mapped_column(sa.String(36), primary_key=True)
    volume_type_id: Mapped[str] = mapped_column(
        sa.String(36), sa.ForeignKey('volume_types.id'), nullable=False, index=True)
    cipher: Mapped[str | None] = mapped_column(sa.String(255))
    key_size: Mapped[int | None] = mapped_column(sa.Integer)
    provider: Mapped[str | None] = mapped_column(sa.String(255))
    control_location: Mapped[str | None] = mapped_column(sa.String(255))
