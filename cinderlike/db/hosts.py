"""What os-hosts shows (cinderlike-api): enabled services, and the volumes and snapshots a
volume host holds, counted from the database as Cinder's hosts extension does."""

import dataclasses

import sqlalchemy as sa

from cinderlike import exception
from cinderlike.db import services as db_services
from cinderlike.db.models import Service, Snapshot, Volume

VOLUME_TOPIC = 'cinder-volume'


@dataclasses.dataclass(frozen=True)
class Usage:
    """Volume and snapshot counts and sizes (GB) of one project, or of all, on a host."""

    project_id: str | None
    volume_count: int
    total_volume_gb: int
    snapshot_count: int = 0
    total_snapshot_gb: int = 0


def enabled_services(db) -> list[Service]:
    """Live services that are not disabled (their cluster's flag for clustered ones)."""
    stmt = (sa.select(Service).where(Service.deleted == sa.false(), db_services.enabled())
            .order_by(Service.id))
    with db.reader() as session:
        return list(session.scalars(stmt))


def volume_service(db, *, host: str) -> Service:
    """The enabled volume service on *host* (Cinder's host match: `h`, `h@b…`, `h#p`).

    :raises ServiceNotFound:
    """
    stmt = (sa.select(Service).where(Service.deleted == sa.false(), Service.topic == VOLUME_TOPIC,
                                     db_services.host_level(Service.host, host),
                                     db_services.enabled())
            .order_by(Service.id).limit(1))
    with db.reader() as session:
        service = session.scalars(stmt).first()
    if service is None:
        raise exception.ServiceNotFound(service_id=VOLUME_TOPIC, host=host)
    return service


def _on_backend(host: str):
    """Cinder's volume_get_all_by_host match: the backend itself or one of its pools."""
    return sa.or_(Volume.host == host, Volume.host.startswith(host + '#', autoescape=True))


def usage(db, *, host: str) -> tuple[Usage, list[Usage]]:
    """The total of the volumes on backend *host*, then per project (sorted) its volumes
    and snapshots there; all in one read transaction, so the parts add up."""
    live = Volume.deleted == sa.false()
    with db.reader() as session:
        count, size = session.execute(sa.select(
            sa.func.count(Volume.id), sa.func.sum(Volume.size)).where(
                live, _on_backend(host))).one()
        projects = sorted(session.scalars(sa.select(Volume.project_id).distinct().where(
            live, _on_backend(host), Volume.project_id.is_not(None))))
        on_host = db_services.host_level(Volume.host, host)
        volumes = dict(_by_project(session, sa.select(
            Volume.project_id, sa.func.count(Volume.id), sa.func.sum(Volume.size)).where(
                live, on_host, Volume.project_id.in_(projects))))
        snapshots = dict(_by_project(session, sa.select(
            Snapshot.project_id, sa.func.count(Snapshot.id),
            sa.func.sum(Snapshot.volume_size)).join(Volume, Volume.id == Snapshot.volume_id)
            .where(Snapshot.deleted == sa.false(), on_host, Snapshot.project_id.in_(projects))))
    rows = [Usage(project, *volumes.get(project, (0, 0)), *snapshots.get(project, (0, 0)))
            for project in projects]
    total = Usage(None, count, int(size or 0), sum(row.snapshot_count for row in rows),
                  sum(row.total_snapshot_gb for row in rows))
    return total, rows


def _by_project(session, stmt):
    for project, count, size in session.execute(stmt.group_by(stmt.selected_columns[0])):
        yield project, (count, int(size or 0))
