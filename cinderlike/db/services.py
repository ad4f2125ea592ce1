"""services rows: registration, heartbeats, enable/disable, and the up/down rule."""

import datetime
import uuid

import sqlalchemy as sa

from cinderlike import exception
from cinderlike.db import conditional
from cinderlike.db import engine as db_engine
from cinderlike.db.models import Cluster, Service, utcnow

# Cinder's binary names: tools that filter os-services on them work unchanged.
VOLUME_BINARY = 'cinder-volume'
SCHEDULER_BINARY = 'cinder-scheduler'
BACKUP_BINARY = 'cinder-backup'
# The services whose in-flight work POST /workers/cleanup can settle.
CLEANABLE_BINARIES = (VOLUME_BINARY, SCHEDULER_BINARY, BACKUP_BINARY)


def is_up(service: Service, *, down_time: int, now: datetime.datetime | None = None) -> bool:
    """Up while the last heartbeat (or registration) is within `service_down_time` seconds."""
    last = service.updated_at or service.created_at
    now = now or utcnow()
    return last is not None and abs((now - last).total_seconds()) <= down_time


def register(db, *, host, binary, topic, availability_zone, cluster_name=None,
             rpc_version=None) -> Service:
    """Create the row for (host, binary), or take over the existing one on restart."""
    with db.writer() as session:
        row = session.scalars(sa.select(Service).where(
            Service.host == host, Service.binary == binary,
            Service.deleted == sa.false())).first()
        if row is None:
            row = Service(uuid=str(uuid.uuid4()), host=host, binary=binary, report_count=0)
            session.add(row)
        row.topic = topic
        row.availability_zone = availability_zone
        row.cluster_name = cluster_name
        row.rpc_current_version = rpc_version
        session.flush()
        return row


def heartbeat(db, service_id: int) -> bool:
    """report_count += 1 and updated_at = now; False when the row was removed meanwhile."""
    with db.writer() as session:
        return conditional.update(
            session, Service,
            values={'report_count': Service.report_count + 1, 'updated_at': utcnow()},
            where=[Service.id == service_id, Service.deleted == sa.false()]) == 1


def get(db, service_id: int) -> Service:
    """:raises ServiceNotFound:"""
    with db.reader() as session:
        row = session.get(Service, service_id)
        if row is None or row.deleted:
            raise exception.ServiceNotFound(service_id=service_id)
        return row


def host_level(column, value: str):
    """Cinder's _filter_host: `h#p` matches exactly, `h@b` also its pools, `h` also its
    backends and pools."""
    conditions = [column == value]
    if '#' not in value:
        conditions.append(column.startswith(value + '#', autoescape=True))
        if '@' not in value:
            conditions.append(column.startswith(value + '@', autoescape=True))
    return sa.or_(*conditions)


def _disabled():
    """Cinder's _clustered_bool_field_filter: a clustered service is disabled when its
    cluster row is; one outside a cluster by its own row."""
    in_disabled_cluster = sa.exists().where(
        Cluster.name == Service.cluster_name, Cluster.binary == Service.binary,
        Cluster.deleted == sa.false(), Cluster.disabled.is_(True))
    return sa.or_(sa.and_(Service.cluster_name.is_(None), Service.disabled.is_(True)),
                  sa.and_(Service.cluster_name.is_not(None), in_disabled_cluster))


def enabled():
    """The SQL twin of "not disabled" (a clustered service by its cluster's row)."""
    return ~_disabled()


def get_all(db, *, host=None, binary=None, disabled=None, cluster_name=None,
            host_or_cluster=None, columns=None) -> list[Service]:
    """Live service rows, filtered like Cinder's service_get_all (*host_or_cluster* at
    Cinder's host/backend/pool match levels on either column; *disabled* of a clustered
    service is its cluster's). With *columns* (names), plain rows of those columns only."""
    stmt = (sa.select(*(getattr(Service, name) for name in columns)) if columns
            else sa.select(Service)).where(Service.deleted == sa.false())
    if host_or_cluster is not None:
        stmt = stmt.where(sa.or_(host_level(Service.host, host_or_cluster),
                                 host_level(Service.cluster_name, host_or_cluster)))
    if host is not None:
        stmt = stmt.where(Service.host == host)
    if binary is not None:
        stmt = stmt.where(Service.binary == binary)
    if disabled is not None:
        stmt = stmt.where(_disabled() if disabled else ~_disabled())
    if cluster_name is not None:
        stmt = stmt.where(Service.cluster_name == cluster_name)
    with db.reader() as session:
        if columns:
            return session.execute(stmt.order_by(Service.id)).all()
        return list(session.scalars(stmt.order_by(Service.id)))


# NOTE(perf): every POST /volumes reads it; built once and read on the session's connection.
_ZONES = sa.select(Service.availability_zone).distinct().where(
    Service.deleted == sa.false(), Service.binary == sa.bindparam('binary'))


def availability_zones(db, *, binary: str, session=None) -> set[str]:
    """The zones of the live services of *binary*."""
    with db.reader(session) as s:
        return set(db_engine.execute(s, _ZONES, {'binary': binary}).scalars())


def set_disabled(db, *, host, binary, disabled: bool, reason=None) -> list[Service]:
    """Enable or disable the (host, binary) services; returns the updated rows.

    :raises ServiceNotFound: when no live service matches (404 in os-services, as Cinder).
    """
    with db.writer() as session:
        # NOTE(heartbeat): updated_at is the heartbeat; keep it, or disabling a dead
        # service would show it up again (Cinder's service_update does the same).
        count = conditional.update(
            session, Service,
            values={'disabled': disabled, 'disabled_reason': reason, 'modified_at': utcnow(),
                    'updated_at': Service.updated_at},
            where=[Service.host == host, Service.binary == binary, Service.deleted == sa.false()])
        if not count:
            raise exception.ServiceNotFound(service_id=binary, host=host)
    return get_all(db, host=host, binary=binary)


def soft_delete(db, service_id: int) -> None:
    """Mark a service row deleted (cinderlike-manage service remove)."""
    with db.writer() as session:
        conditional.update(session, Service,
                           values={'deleted': True, 'deleted_at': utcnow()},
                           where=[Service.id == service_id, Service.deleted == sa.false()])
