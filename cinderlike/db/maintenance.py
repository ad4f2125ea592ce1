"""Operator repairs run by cinderlike-manage: purge soft-deleted rows, recount quota usage
from the resource rows, move volumes and backups to a renamed host, online data migrations."""

import dataclasses
import datetime
import uuid

import sqlalchemy as sa

from cinderlike.db import conditional
from cinderlike.db import quotas as db_quotas
from cinderlike.db import services as db_services
from cinderlike.db.models import Backup, Base, QuotaUsage, Reservation, Service, Volume, utcnow


def purge_deleted_rows(db, *, age_in_days: int) -> list[tuple[str, int]]:
    """Delete rows soft-deleted more than *age_in_days* ago, children before parents (Cinder's
    purge_deleted_rows); [(table, rows deleted)] of the tables that had some.

    :raises sqlalchemy.exc.IntegrityError: when a live row still refers to a purged one.
    """
    before = utcnow() - datetime.timedelta(days=age_in_days)
    purged = []
    with db.writer() as session:
        for table in reversed(Base.metadata.sorted_tables):
            if 'deleted' not in table.c or 'deleted_at' not in table.c:
                continue
            # NOTE(deleted): volume_type_projects keeps Cinder's integer `deleted`.
            deleted = (table.c.deleted.is_(True) if isinstance(table.c.deleted.type, sa.Boolean)
                       else table.c.deleted != 0)
            result = session.execute(sa.delete(table).where(deleted,
                                                            table.c.deleted_at < before))
            if result.rowcount:
                purged.append((table.name, result.rowcount))
    return purged


@dataclasses.dataclass(frozen=True)
class UsageDrift:
    """One quota_usages value that differs from what the rows say."""

    project_id: str
    resource: str
    field: str  # 'usage' (in_use) or 'reserved'
    saved: int
    actual: int


def quota_projects(db) -> list[str]:
    """Projects that have live quota_usages rows."""
    with db.reader() as session:
        return list(session.scalars(sa.select(QuotaUsage.project_id).where(
            QuotaUsage.deleted == sa.false()).distinct().order_by(QuotaUsage.project_id)))


def check_project_usage(db, *, project_id: str, fix: bool,
                        no_snapshot_gb_quota: bool) -> list[UsageDrift]:
    """Recount each usage row of the project from the volumes, snapshots and backups rows and
    its reserved from its live positive reservations; with *fix*, store the counts. One
    transaction per project, usage rows locked first (as quota reserve/commit lock them)."""
    drifts = []
    with db.writer() as session:
        usages = list(session.scalars(sa.select(QuotaUsage).where(
            QuotaUsage.project_id == project_id, QuotaUsage.deleted == sa.false())
            .order_by(QuotaUsage.id).with_for_update()))
        type_ids = db_quotas.volume_types(db, session=session)
        for usage in usages:
            in_use = db_quotas.count_in_use(session, project_id=project_id,
                                            resource=usage.resource, type_ids=type_ids,
                                            no_snapshot_gb_quota=no_snapshot_gb_quota)
            reserved = int(session.execute(sa.select(sa.func.coalesce(
                sa.func.sum(Reservation.delta), 0)).where(
                Reservation.usage_id == usage.id, Reservation.deleted == sa.false(),
                Reservation.delta > 0)).scalar_one())
            for field, saved, actual in (('usage', usage.in_use, in_use),
                                         ('reserved', usage.reserved, reserved)):
                if saved != actual:
                    drifts.append(UsageDrift(project_id, usage.resource, field, saved, actual))
            if fix and (usage.in_use, usage.reserved) != (in_use, reserved):
                conditional.update(session, QuotaUsage,
                                   values={'in_use': in_use, 'reserved': reserved},
                                   where=[QuotaUsage.id == usage.id])
    return drifts


def update_volume_host(db, *, current: str, new: str) -> int:
    """Move the live volumes whose host is exactly *current* to *new*; how many moved."""
    with db.writer() as session:
        return conditional.update(session, Volume, values={'host': new},
                                  where=[Volume.host == current, Volume.deleted == sa.false()])


def update_backup_host(db, *, current: str, new: str) -> int:
    """Move the live backups of host *current* to *new*; how many moved."""
    with db.writer() as session:
        return conditional.update(session, Backup, values={'host': new},
                                  where=[Backup.host == current, Backup.deleted == sa.false()])


def list_backups(db) -> list[Backup]:
    """Every live backup, in progress ones included, oldest first."""
    with db.reader() as session:
        return list(session.scalars(sa.select(Backup).where(Backup.deleted == sa.false())
                                    .order_by(Backup.created_at, Backup.id)))


def services_without_uuid(db) -> list[Service]:
    """Live services rows that have no uuid (registered by an older release)."""
    with db.reader() as session:
        return list(session.scalars(sa.select(Service).where(
            Service.deleted == sa.false(), Service.uuid.is_(None))))


def placed_volumes_without_service_uuid(db) -> int:
    """How many live volumes a backend created (launched_at set) name no service uuid."""
    with db.reader() as session:
        return int(session.execute(sa.select(sa.func.count(Volume.id)).where(
            Volume.deleted == sa.false(), Volume.launched_at.is_not(None),
            Volume.service_uuid.is_(None))).scalar_one())


def service_uuids_online_data_migration(db, max_count: int) -> tuple[int, int]:
    """Give up to *max_count* uuid-less services rows a uuid, and the volumes of each such
    backend its service_uuid; (rows found, rows migrated), as Cinder's online migrations."""
    with db.writer() as session:
        found = int(session.execute(sa.select(sa.func.count(Service.id)).where(
            Service.deleted == sa.false(), Service.uuid.is_(None))).scalar_one())
        rows = list(session.scalars(sa.select(Service).where(
            Service.deleted == sa.false(), Service.uuid.is_(None)).limit(max_count)))
        for row in rows:
            new = str(uuid.uuid4())
            conditional.update(session, Service, values={'uuid': new,
                                                         'updated_at': Service.updated_at},
                               where=[Service.id == row.id, Service.uuid.is_(None)])
            if row.binary == db_services.VOLUME_BINARY:
                conditional.update(session, Volume, values={'service_uuid': new}, where=[
                    Volume.deleted == sa.false(), Volume.service_uuid.is_(None),
                    db_services.host_level(Volume.host, row.host)])
        return found, len(rows)
