"""cinderlike-volume: delete a volume the API moved to `deleting` (Cinder's delete_volume).

The manager holds the tooz lock `locks.delete_volume(id)` around this. On success the row is
soft-deleted, and the quota and the pool's claim given back, in one transaction.
"""

from oslo_log import log as logging

from cinderlike import exception, quota
from cinderlike.db import volumes as db_volumes
from cinderlike.db import workers as db_workers
from cinderlike.db.models import Volume
from cinderlike.drivers.volume import base
from cinderlike.states.volumes import Status
from cinderlike.volume import claims

LOG = logging.getLogger(__name__)


def _quota_deltas(manager, volume) -> dict[str, int]:
    type_name = db_volumes.get_type_names(manager.db, type_ids={volume.volume_type_id}).get(
        volume.volume_type_id)
    deltas = quota.volume_deltas(size=volume.size or 0, volume_type_name=type_name)
    return {resource: -amount for resource, amount in deltas.items()}


def _settle(manager, volume, claim, **outcome) -> None:
    """Leave `deleting` for error_deleting (error=True) or available (status=...)."""
    with manager.db.writer() as s:
        done = db_volumes.finish(manager.db, volume_id=volume.id, action='delete',
                                 where=[db_workers.held(claim)], session=s, **outcome)
        if done:
            db_workers.finish(manager.db, claim=claim, session=s)
    if not done:
        db_workers.fenced(manager.db, claim=claim, operation='delete')


def _destroy(manager, volume, claim) -> bool:
    deltas = _quota_deltas(manager, volume)
    with manager.db.writer() as s:
        if not db_volumes.destroy(manager.db, volume_id=volume.id, session=s,
                                  where=[Volume.status == Status.DELETING,
                                         db_workers.held(claim)]):
            return False
        if volume.use_quota:
            quota.release_usage(manager.db, project_id=volume.project_id, deltas=deltas,
                                session=s)
        # NOTE(claim): a create that failed gave its claim back already; only a volume
        # that was launched (the backend allocated it) still holds one.
        if volume.launched_at is not None:
            claims.release(manager.db, volume, volume.size, session=s)
        db_workers.finish(manager.db, claim=claim, session=s)
    return True


def delete_volume(manager, ctx, *, volume_id: str) -> bool:
    """Remove the volume from the backend and the database; True when it is gone.

    VolumeIsBusy from the driver puts it back to `available`; any other failure leaves it
    `error_deleting`.
    """
    volume, claim = db_workers.begin_volume(manager.db, volume_id=volume_id,
                                            status=Status.DELETING,
                                            service_id=manager.service_id)
    if claim is None:
        LOG.warning('Volume %s is %s, not deleting; nothing to do', volume_id, volume.status)
        return False
    manager.notifier.info(ctx, volume, 'delete.start')
    ref = base.VolumeRef.of(volume)
    try:
        manager.require_driver()
        manager.driver.remove_export(ref)
        manager.driver.delete_volume(ref)
    except exception.VolumeIsBusy:
        LOG.error('Volume %s is busy on the backend; it stays available', volume_id)
        _settle(manager, volume, claim, status=Status.AVAILABLE)
        return False
    except Exception:
        LOG.exception('Volume %s: driver failed to delete it', volume_id)
        _settle(manager, volume, claim, error=True)
        return False
    if not _destroy(manager, volume, claim):
        if not db_workers.fenced(manager.db, claim=claim, operation='delete'):
            LOG.warning('Volume %s moved on while it was being deleted', volume_id)
        return False
    manager.notifier.info(ctx, volume, 'delete.end')
    return True
