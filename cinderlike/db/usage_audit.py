"""Queries of cinderlike-volume-usage-audit: the volumes alive during an audit window."""

import datetime
from typing import NamedTuple

import sqlalchemy as sa

from cinderlike.db.models import Volume, VolumeAttachment, VolumeMetadata


class ActiveVolume(NamedTuple):
    """A volume row with what its usage notification reports besides its columns."""

    volume: Volume
    metadata: dict[str, str]
    attachments: list[VolumeAttachment]


def iter_volumes_active_in_window(db, *, begin: datetime.datetime, end: datetime.datetime,
                                  batch_size: int = 500):
    """Yield lists of ActiveVolume, at most *batch_size* each, in id order.

    Alive in [begin, end) as Cinder's `volume_get_all_active_by_window` says: created
    before *end* and not deleted, or deleted after *begin* (soft-deleted rows included).
    """
    alive = sa.and_(Volume.created_at < end,
                    sa.or_(Volume.deleted_at.is_(None), Volume.deleted_at > begin))
    last_id = None
    while True:
        query = sa.select(Volume).where(alive).order_by(Volume.id).limit(batch_size)
        if last_id is not None:
            query = query.where(Volume.id > last_id)
        with db.reader() as session:
            volumes = session.execute(query).scalars().all()
            if not volumes:
                return
            batch = _with_details(session, volumes)
        yield batch
        last_id = volumes[-1].id


def _with_details(session, volumes) -> list[ActiveVolume]:
    ids = [volume.id for volume in volumes]
    metadata = {volume_id: {} for volume_id in ids}
    rows = session.execute(
        sa.select(VolumeMetadata.volume_id, VolumeMetadata.key, VolumeMetadata.value)
        .where(VolumeMetadata.volume_id.in_(ids), VolumeMetadata.deleted.is_(False)))
    for volume_id, key, value in rows:
        metadata[volume_id][key] = value
    attachments = {volume_id: [] for volume_id in ids}
    for attachment in session.execute(
            sa.select(VolumeAttachment)
            .where(VolumeAttachment.volume_id.in_(ids), VolumeAttachment.deleted.is_(False))
            .order_by(VolumeAttachment.created_at, VolumeAttachment.id)).scalars():
        attachments[attachment.volume_id].append(attachment)
    return [ActiveVolume(v, metadata[v.id], attachments[v.id]) for v in volumes]
