"""cinderlike-volume: delete a volume the API moved to `deleting` (Cinder's delete_volume).

The manager holds the tooz lock `locks.delete_volume(id)` around this. On success the row is
soft-deleted, and the quota and the pool's capacity claim given back, in one fenced step.
"""

from oslo_log import log as logging

from cinderlike import exception, quota
from cinderlike.db import pools as db_pools
from cinderlike.db import settle as db_settle
from cinderlike.db import volumes as db_volumes
from cinderlike.db.models import utcnow
from cinderlike.drivers.volume import base
from cinderlike.states.volumes import Status
from cinderlike.volume import snapshots

LOG = logging.getLogger(__name__)


def _gone(volume, action: str) -> db_settle.Outcome:
    """The delete's (or unmanage's) outcome: row destroyed, usage (of the type the take read,
    WITH_TYPE_NAME) and (if held) capacity given back."""
    deltas = quota.volume_deltas(size=volume.size or 0, volume_type_name=volume.type_name)
    return db_settle.Outcome(
        action=action, destroy=True, values={'terminated_at': utcnow()},
        release_usage={resource: -amount for resource, amount in deltas.items()},
        release_gb=volume.size if db_pools.holds_claim(volume) else 0)


def delete_volume(manager, ctx, *, volume_id: str, cascade: bool = False,
                  unmanage_only: bool = False) -> bool:
    """Remove the volume from the backend and the database; True when it is gone.

    VolumeIsBusy from the driver puts it back to `available`; any other failure leaves it
    `error_deleting`. With *unmanage_only* (os-unmanage, an `unmanaging` volume) the
    backend keeps the data and a failure leaves it `error_unmanaging`.
    """
    action = 'unmanage' if unmanage_only else 'delete'
    status = Status.UNMANAGING if unmanage_only else Status.DELETING
    # NOTE(perf): the type's name (for its per-type quota) is read by the take's own SELECT.
    volume, hold = manager.hold(db_volumes.MACHINE, row_id=volume_id, status=status,
                                options=(db_volumes.WITH_TYPE_NAME,))
    if hold is None:
        return False
    manager.notifier.info(ctx, volume, f'{action}.start')
    ref = base.VolumeRef.of(volume)
    try:
        manager.require_driver()
        if cascade and not snapshots.delete_cascaded(manager, ctx, volume_id=volume_id):
            raise exception.VolumeDriverException(
                message=f'snapshots of volume {volume_id} could not be deleted')
        manager.driver.remove_export(ref)
        if unmanage_only:
            manager.driver.unmanage(ref)
        else:
            manager.driver.delete_volume(ref)
    except exception.VolumeIsBusy:
        LOG.error('Volume %s is busy on the backend; it stays available', volume_id)
        outcome = db_settle.Outcome(action=action, status=Status.AVAILABLE)
    except Exception:
        LOG.exception('Volume %s: driver failed to %s it', volume_id, action)
        outcome = db_settle.Outcome(action=action, error=True)
    else:
        outcome = None

    settled = db_settle.settle(manager.db, db_volumes.MACHINE, row=volume, hold=hold,
                               outcome=outcome or _gone(volume, action))
    if settled is db_settle.Settled.MOVED_ON:
        LOG.warning('Volume %s moved on while it was being deleted', volume_id)
    if settled is not db_settle.Settled.DONE or outcome is not None:
        return False
    manager.notifier.info(ctx, volume, f'{action}.end')
    return True
