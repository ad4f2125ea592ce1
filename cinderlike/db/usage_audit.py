"""Queries of cinderlike-volume-usage-audit: the volumes, snapshots and backups alive during
an audit window."""

import datetime
from typing import NamedTuple

import sqlalchemy as sa

from cinderlike.db.models import (
    Backup,
    Snapshot,
    SnapshotMetadata,
    Volume,
    VolumeAttachment,
    VolumeMetadata,
)


class ActiveVolume(NamedTuple):
    """A volume row with what its usage notification reports besides its columns."""

    volume: Volume
    metadata: dict[str, str]
    attachments: list[VolumeAttachment]


class ActiveSnapshot(NamedTuple):
    """A snapshot row with its metadata and its volume's row (deleted or not)."""

    snapshot: Snapshot
    metadata: dict[str, str]
    volume: Volume | None


def _iter_active(db, model, details, *, begin, end, batch_size):
    """Batches of *details(session, rows)* for the rows of *model* alive in [begin, end):
    created before *end* and not deleted, or deleted after *begin* (Cinder's
    `*_get_all_active_by_window`, soft-deleted rows included), in id order."""
    alive = sa.and_(model.created_at < end,
                    sa.or_(model.deleted_at.is_(None), model.deleted_at > begin))
    last_id = None
    while True:
        query = sa.select(model).where(alive).order_by(model.id).limit(batch_size)
        if last_id is not None:
            query = query.where(model.id > last_id)
        with db.reader() as session:
            rows = session.execute(query).scalars().all()
            if not rows:
                return
            batch = details(session, rows)
        yield batch
        last_id = rows[-1].id


def iter_volumes_active_in_window(db, *, begin: datetime.datetime, end: datetime.datetime,
                                  batch_size: int = 500):
    """Yield lists of ActiveVolume, at most *batch_size* each, in id order."""
    yield from _iter_active(db, Volume, _with_details, begin=begin, end=end,
                            batch_size=batch_size)


def iter_snapshots_active_in_window(db, *, begin: datetime.datetime,
                                    end: datetime.datetime, batch_size: int = 500):
    """Yield lists of ActiveSnapshot, at most *batch_size* each, in id order."""
    yield from _iter_active(db, Snapshot, _snapshot_details, begin=begin, end=end,
                            batch_size=batch_size)


def iter_backups_active_in_window(db, *, begin: datetime.datetime, end: datetime.datetime,
                                  batch_size: int = 500):
    """Yield lists of backups rows, at most *batch_size* each, in id order."""
    yield from _iter_active(db, Backup, lambda session, rows: list(rows), begin=begin,
                            end=end, batch_size=batch_size)


def _snapshot_details(session, snapshots) -> list[ActiveSnapshot]:
    ids = [snapshot.id for snapshot in snapshots]
    metadata = {snapshot_id: {} for snapshot_id in ids}
    for snapshot_id, key, value in session.execute(
            sa.select(SnapshotMetadata.snapshot_id, SnapshotMetadata.key,
                      SnapshotMetadata.value)
            .where(SnapshotMetadata.snapshot_id.in_(ids), SnapshotMetadata.deleted == sa.false())):
        metadata[snapshot_id][key] = value
    volumes = {volume.id: volume for volume in session.execute(sa.select(Volume).where(
        Volume.id.in_({snapshot.volume_id for snapshot in snapshots}))).scalars()}
    return [ActiveSnapshot(s, metadata[s.id], volumes.get(s.volume_id)) for s in snapshots]


def _with_details(session, volumes) -> list[ActiveVolume]:
    ids = [volume.id for volume in volumes]
    metadata = {volume_id: {} for volume_id in ids}
    rows = session.execute(
        sa.select(VolumeMetadata.volume_id, VolumeMetadata.key, VolumeMetadata.value)
        .where(VolumeMetadata.volume_id.in_(ids), VolumeMetadata.deleted == sa.false()))
    for volume_id, key, value in rows:
        metadata[volume_id][key] = value
    attachments = {volume_id: [] for volume_id in ids}
    for attachment in session.execute(
            sa.select(VolumeAttachment)
            .where(VolumeAttachment.volume_id.in_(ids), VolumeAttachment.deleted == sa.false())
            .order_by(VolumeAttachment.created_at, VolumeAttachment.id)).scalars():
        attachments[attachment.volume_id].append(attachment)
    return [ActiveVolume(v, metadata[v.id], attachments[v.id]) for v in volumes]
