"""cinderlike-volume: run the create-volume flow for one volume the scheduler placed here."""

from oslo_log import log as logging

from cinderlike import exception, flow
from cinderlike.volume.flows import create_volume as flow_tasks

LOG = logging.getLogger(__name__)

# Cinder's order: ref, reschedule guard, spec, create.start, driver, finish.
FLOW = flow.LinearFlow(
    'volume_create_manager',
    flow_tasks.ExtractVolumeRef(), flow_tasks.OnFailureReschedule(),
    flow_tasks.ExtractVolumeSpec(), flow_tasks.NotifyCreateStart(),
    flow_tasks.CreateVolumeFromSpec(), flow_tasks.CreateVolumeOnFinish())


def create_volume(manager, ctx, *, volume_id: str, request_spec: dict,
                  filter_properties: dict, allow_reschedule: bool = True) -> bool:
    """Create the volume; True when it became available here.

    A failure has been settled by the flow's revert (rescheduled, or `error` with a user
    message) by the time this returns False.
    """
    store = {'manager': manager, 'ctx': ctx, 'volume_id': volume_id,
             'request_spec': request_spec, 'filter_properties': filter_properties or {},
             'allow_reschedule': allow_reschedule}
    try:
        FLOW.run(store, timer=manager.flow_timer())
    except exception.VolumeMovedOn as moved:
        # NOTE(fencing): the revert logged why (a take-over logs its refusal once).
        LOG.info('Volume %s: create on %s stopped: %s', volume_id, manager.host, moved)
        return False
    except Exception:
        LOG.exception('Volume %s: create failed on %s', volume_id, manager.host)
        return False
    return True
