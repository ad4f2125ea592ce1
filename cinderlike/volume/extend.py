"""cinderlike-volume: grow a volume the API moved to `extending` (Cinder's extend_volume).

Success commits the quota reservation and writes the new size, then tells Nova about it
when servers use the volume; failure leaves the volume `error_extending`, rolls the
reservation back and gives the pool's extra claim back.
"""

from oslo_log import log as logging

from cinderlike import messages
from cinderlike.db import attachments as db_attachments
from cinderlike.db import settle as db_settle
from cinderlike.db import volumes as db_volumes
from cinderlike.drivers.volume import base
from cinderlike.states.volumes import Status

LOG = logging.getLogger(__name__)


def failed(volume, request: dict) -> db_settle.Outcome:
    """An extend that did not happen: `error_extending`, reservations and extra claim back.

    *request* is the workers row's (new_size, reservations, claimed), which a cleanup reads
    too; `claimed` is false while the scheduler has not claimed the extra capacity yet (an
    extend whose cast was lost before it).
    """
    new_size = request.get('new_size')
    claimed = new_size and request.get('claimed', True)
    return db_settle.Outcome(action='extend', error=True,
                             rollback=tuple(request.get('reservations') or ()),
                             release_gb=new_size - volume.size if claimed else 0)


def extend_volume(manager, ctx, *, volume_id: str, new_size: int,
                  reservations: list[str]) -> bool:
    """Grow the volume to *new_size* GiB; True when it did."""
    # NOTE(claimed): the scheduler claimed the extra capacity before casting here.
    request = {'new_size': new_size, 'reservations': list(reservations), 'claimed': True}
    volume, hold = manager.hold(db_volumes.MACHINE, row_id=volume_id,
                                status=Status.EXTENDING, request=request)
    if hold is None:
        return False
    manager.notifier.info(ctx, volume, 'resize.start')
    error = None
    try:
        manager.require_driver()
        manager.driver.extend_volume(base.VolumeRef.of(volume), new_size)
    except Exception as driver_error:
        LOG.exception('Volume %s: driver failed to extend it to %s GiB', volume_id, new_size)
        error = driver_error
        outcome = failed(volume, request)
    else:
        outcome = db_settle.Outcome(action='extend', values={'size': new_size},
                                    commit=tuple(reservations))
    settled = db_settle.settle(manager.db, db_volumes.MACHINE, row=volume, hold=hold,
                               outcome=outcome)
    if settled is db_settle.Settled.MOVED_ON:
        LOG.warning('Volume %s moved on while it was being extended', volume_id)
    if error is not None and settled is not db_settle.Settled.FENCED:
        # NOTE(fencing): a service that took the row over settled the extend and its quota.
        messages.create(manager.db, ctx, conf=manager.conf,
                        action=messages.Action.EXTEND_VOLUME, resource_uuid=volume.id,
                        detail=messages.Detail.DRIVER_FAILED_EXTEND, exception=error)
    if error is not None or settled is not db_settle.Settled.DONE:
        return False
    LOG.info('Volume %s extended to %s GiB', volume_id, new_size)
    manager.notifier.info(ctx, volume, 'resize.end', reload=True, size=new_size)
    notify_compute(manager, ctx, volume_id=volume_id)
    return True


def notify_compute(manager, ctx, *, volume_id: str) -> None:
    """Send Nova `volume-extended` for the servers the volume is attached to.

    An attachment without instance_uuid is not a server's (Glance's cinder store, say).
    Nova not told is a user message only: the volume stays extended.
    """
    instance_uuids = [attachment.instance_uuid for attachment
                      in db_attachments.of_volume(manager.db, volume_id=volume_id)
                      if attachment.instance_uuid]
    # NOTE(rss): imported on use; keystoneauth1 (requests) stays out of a volume service
    # that never calls Nova.
    from cinderlike.compute import nova
    if instance_uuids and not nova.API(manager.conf).extend_volume(ctx, instance_uuids,
                                                                  volume_id):
        messages.create(manager.db, ctx, conf=manager.conf,
                        action=messages.Action.EXTEND_VOLUME, resource_uuid=volume_id,
                        detail=messages.Detail.NOTIFY_COMPUTE_SERVICE_FAILED)
