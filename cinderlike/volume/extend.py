"""cinderlike-volume: grow a volume the API moved to `extending` (Cinder's extend_volume).

Success commits the quota reservation and writes the new size; failure leaves the volume
`error_extending`, rolls the reservation back and gives the pool's extra claim back.
"""

from oslo_log import log as logging

from cinderlike import messages, quota
from cinderlike.db import volumes as db_volumes
from cinderlike.db import workers as db_workers
from cinderlike.drivers.volume import base
from cinderlike.states.volumes import Status
from cinderlike.volume import claims

LOG = logging.getLogger(__name__)


def _fail(manager, ctx, volume, claim, new_size, reservations, error) -> None:
    with manager.db.writer() as s:
        done = db_volumes.finish(manager.db, volume_id=volume.id, action='extend', error=True,
                                 where=[db_workers.held(claim)], session=s)
        if done:
            quota.rollback(manager.db, ctx, reservations, session=s)
            claims.release(manager.db, volume, new_size - volume.size, session=s)
            db_workers.finish(manager.db, claim=claim, session=s)
    # NOTE(fencing): a service that took the row over settled the extend and its quota.
    if not done and db_workers.fenced(manager.db, claim=claim, operation='extend'):
        return
    messages.create(manager.db, ctx, conf=manager.conf, action=messages.Action.EXTEND_VOLUME,
                    resource_uuid=volume.id, detail=messages.Detail.DRIVER_FAILED_EXTEND,
                    exception=error)


def _succeed(manager, ctx, volume, claim, new_size, reservations) -> bool:
    with manager.db.writer() as s:
        if not db_volumes.finish(manager.db, volume_id=volume.id, action='extend',
                                 values={'size': new_size},
                                 where=[db_workers.held(claim)], session=s):
            return False
        quota.commit(manager.db, ctx, reservations, session=s)
        db_workers.finish(manager.db, claim=claim, session=s)
    return True


def extend_volume(manager, ctx, *, volume_id: str, new_size: int,
                  reservations: list[str]) -> bool:
    """Grow the volume to *new_size* GiB; True when it did."""
    volume, claim = db_workers.begin_volume(
        manager.db, volume_id=volume_id, status=Status.EXTENDING, service_id=manager.service_id,
        request={'new_size': new_size, 'reservations': list(reservations)})
    if claim is None:
        LOG.warning('Volume %s is %s, not extending; nothing to do', volume_id, volume.status)
        return False
    manager.notifier.info(ctx, volume, 'resize.start')
    try:
        manager.require_driver()
        manager.driver.extend_volume(base.VolumeRef.of(volume), new_size)
    except Exception as error:
        LOG.exception('Volume %s: driver failed to extend it to %s GiB', volume_id, new_size)
        _fail(manager, ctx, volume, claim, new_size, reservations, error)
        return False
    if not _succeed(manager, ctx, volume, claim, new_size, reservations):
        if not db_workers.fenced(manager.db, claim=claim, operation='extend'):
            LOG.warning('Volume %s moved on while it was being extended', volume_id)
        return False
    LOG.info('Volume %s extended to %s GiB', volume_id, new_size)
    manager.notifier.info(ctx, volume, 'resize.end', reload=True, size=new_size)
    return True
