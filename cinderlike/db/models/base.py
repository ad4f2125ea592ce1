"""Declarative base, timestamp columns and portable column types shared by every model.

Timestamps are naive UTC, as Cinder stores them, with microseconds on every database.
"""

import datetime

import sqlalchemy as sa
from oslo_utils import timeutils
from sqlalchemy import orm
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.orm import Mapped, mapped_column


class _DateTimeMicroseconds(sa.DateTime):
    """MySQL's and MariaDB's DATETIME(6): MySQL's own DATETIME(fsp=6), declared without
    importing its dialect's package (db/dialects.py says why)."""


@compiles(_DateTimeMicroseconds)
def _datetime_microseconds(type_, compiler, **kw):
    return 'DATETIME(6)'


# NOTE(mysql): MySQL/MariaDB DATETIME drops fractions of a second unless fsp is given; heartbeats,
# workers cleanup and capability reports compare timestamps closer than a second apart.
DateTime = sa.DateTime().with_variant(_DateTimeMicroseconds(), 'mysql', 'mariadb')


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

    created_at: Mapped[datetime.datetime | None] = mapped_column(DateTime, default=utcnow)
    updated_at: Mapped[datetime.datetime | None] = mapped_column(DateTime, onupdate=utcnow)
    deleted_at: Mapped[datetime.datetime | None] = mapped_column(DateTime)
    deleted: Mapped[bool] = mapped_column(sa.Boolean, default=False, nullable=False)


class KeyValueMixin(TimestampMixin):
    """One key/value pair of a resource's metadata or extra specs (Cinder's String(255) pair)."""

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    key: Mapped[str | None] = mapped_column(sa.String(255))
    value: Mapped[str | None] = mapped_column(sa.String(255))
