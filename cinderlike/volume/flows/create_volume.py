"""cinderlike-volume: the create-volume flow on the backend the scheduler chose (Cinder's
volume/flows/manager/create_volume.py): load the row, create through the driver, finish.

A failing task reverts those before it; OnFailureReschedule's revert sends the volume back to
the scheduler (other backends) or, after the last attempt, settles it `error`.
"""

import traceback

from oslo_log import log as logging
from taskflow import task

from cinderlike import exception, messages
from cinderlike.db import pools as db_pools
from cinderlike.db import qos_specs as db_qos_specs
from cinderlike.db import settle as db_settle
from cinderlike.db import snapshots as db_snapshots
from cinderlike.db import volumes as db_volumes
from cinderlike.db import workers as db_workers
from cinderlike.db.models import utcnow
from cinderlike.drivers.volume import base
from cinderlike.states.volumes import Status
from cinderlike.volume import backups

LOG = logging.getLogger(__name__)

# Failures another backend cannot fix: the volume goes straight to `error`.
NO_RESCHEDULE = (exception.VolumeNotFound, exception.VolumeTypeNotFound,
                 exception.SnapshotNotFound)


class ExtractVolumeRef(task.Task):
    """Load the row, which must still be `creating`, and take its workers row; read its
    type's back-end QoS specs in the same transaction."""

    default_provides = ('volume', 'hold', 'qos')

    def execute(self, manager, volume_id):
        # NOTE(outage): retried as Manager.hold is (see there).
        volume, hold, qos = manager.db.retrying(
            lambda: self._take(manager, volume_id), what=f'Taking volume {volume_id}')
        if hold is None:
            raise exception.VolumeMovedOn(
                reason=f'volume {volume_id} is {volume.status}, not creating')
        return volume, hold, qos

    @staticmethod
    def _take(manager, volume_id):
        with manager.db.writer() as s:
            # NOTE(perf): the type's QoS specs id is read by the take's own SELECT.
            volume, hold = db_workers.begin_for(
                manager.db, db_volumes.MACHINE, row_id=volume_id, status=Status.CREATING,
                service_id=manager.service_id, session=s,
                options=(db_qos_specs.WITH_LIVE_TYPE_QOS,))
            if hold is None:
                return volume, None, None
            # NOTE(perf): read with the take, one transaction less per create. A type that
            # is gone fails the flow in ExtractVolumeSpec, where the revert settles it.
            try:
                qos = db_qos_specs.backend_specs(manager.db, volume=volume, session=s)
            except exception.VolumeTypeNotFound as gone:
                qos = gone
        return volume, hold, qos


class OnFailureReschedule(task.Task):
    """Nothing forward; on revert, reschedule through the scheduler or settle `error`."""

    def execute(self):
        pass

    def revert(self, manager, ctx, volume, hold, request_spec, filter_properties,
               allow_reschedule, flow_failures, **kwargs):
        failure = next(iter(flow_failures.values()))
        # NOTE(fencing): a settle that found the row taken over (or moved on) logged it
        # already; otherwise the service that took the row over settled the volume.
        if failure.check(exception.VolumeMovedOn) or db_workers.fenced(
                manager.db, hold=hold, operation='create'):
            return
        retry = filter_properties.get('retry')
        attempts = (retry or {}).get('num_attempts', 1)
        if (allow_reschedule and retry is not None and not failure.check(*NO_RESCHEDULE)
                and attempts < manager.conf.scheduler_max_attempts):
            if self._reschedule(manager, ctx, volume, hold, request_spec,
                                filter_properties, failure):
                return
        self._error_out(manager, ctx, volume, hold, failure)

    @staticmethod
    def _reschedule(manager, ctx, volume, hold, request_spec, filter_properties, failure):
        """Give the pool's claim back, clear the host and cast to the scheduler again."""
        retry = dict(filter_properties['retry'])
        # NOTE(retry): the scheduler lists pool-level ids ('<cluster or host>#<pool>') and
        # adds the pool it chose; this one is added here if a sender did not.
        backend = db_pools.pool_of(volume)
        for key in ('backends', 'hosts'):
            tried = list(retry.get(key) or [])
            if backend not in tried:
                tried.append(backend)
            retry[key] = tried
        retry['exc'] = traceback.format_exception_only(failure.exception)
        unscheduled = db_settle.Outcome(
            action='create', status=Status.CREATING, release_gb=_claimed(volume),
            values={'host': None, 'cluster_name': None, 'scheduled_at': utcnow()})
        if db_settle.settle(manager.db, db_volumes.MACHINE, row=volume, hold=hold,
                            outcome=unscheduled) is not db_settle.Settled.DONE:
            return False
        LOG.warning('Volume %(id)s: create failed on %(host)s (attempt %(n)s); rescheduling',
                    {'id': volume.id, 'host': volume.host, 'n': retry.get('num_attempts')})
        try:
            manager.scheduler_api.create_volume(
                ctx, volume_id=volume.id, request_spec=request_spec,
                filter_properties=dict(filter_properties, retry=retry))
        except Exception as error:
            # NOTE(cast): a volume nobody will place must not stay `creating`.
            LOG.exception('Volume %s: could not send it back to the scheduler', volume.id)
            if db_volumes.fail_unplaced(manager.db, volume_id=volume.id):
                _message(manager, ctx, volume, error)
        return True

    @staticmethod
    def _error_out(manager, ctx, volume, hold, failure):
        """`error`, the claim given back (the backend holds nothing), a user message."""
        if db_settle.settle(manager.db, db_volumes.MACHINE, row=volume, hold=hold,
                            outcome=failed(volume)) is not db_settle.Settled.DONE:
            LOG.warning('Volume %s moved on while its create failed', volume.id)
            return
        LOG.error('Volume %(id)s: create failed on %(host)s: %(error)s',
                  {'id': volume.id, 'host': volume.host, 'error': failure.exception_str})
        _message(manager, ctx, volume, failure.exception)


def _claimed(volume) -> float:
    return volume.size if db_pools.holds_claim(volume) else 0


def failed(volume) -> db_settle.Outcome:
    """A create that ends here: `error`, and the capacity claim given back (the quota stays
    used until the user deletes the volume, as Cinder's)."""
    return db_settle.Outcome(action='create', error=True, release_gb=_claimed(volume))


def _message(manager, ctx, volume, error):
    """The user message of a failed create (Cinder's 008 action, 012 detail unless mapped)."""
    messages.create(manager.db, ctx, conf=manager.conf,
                    action=messages.Action.CREATE_VOLUME_FROM_BACKEND,
                    resource_uuid=volume.id, detail=messages.Detail.DRIVER_FAILED_CREATE,
                    exception=error)


class ExtractVolumeSpec(task.Task):
    """What the driver is asked for: a raw volume, a clone of `source_volid`, a volume
    from `snapshot_id`, or a raw volume a backup host restores `backup_id` into."""

    default_provides = 'volume_spec'

    def execute(self, manager, volume, request_spec, qos):
        # NOTE(qos): as Cinder, the driver gets the type's back-end QoS specs at create.
        if isinstance(qos, exception.VolumeTypeNotFound):
            raise qos
        spec = {'type': 'raw', 'ref': base.VolumeRef.of(volume, qos_specs=qos),
                'source': None}
        if volume.source_volid:
            source = db_volumes.get(manager.db, volume_id=volume.source_volid)
            spec.update(type='source_vol', source=base.VolumeRef.of(source))
        elif volume.snapshot_id:
            snapshot = db_snapshots.get(manager.db, snapshot_id=volume.snapshot_id)
            origin = db_volumes.get_any(manager.db, volume_id=snapshot.volume_id)
            spec.update(type='snap', source=base.SnapshotRef.of(snapshot, origin))
        elif (request_spec or {}).get('backup_id'):
            spec.update(type='backup', backup_id=request_spec['backup_id'])
        return spec


class NotifyCreateStart(task.Task):
    """volume.create.start."""

    def execute(self, manager, ctx, volume):
        manager.notifier.info(ctx, volume, 'create.start')


class CreateVolumeFromSpec(task.Task):
    """The driver creates the volume (or the clone); on revert it frees whatever it made."""

    default_provides = 'model_update'

    def execute(self, manager, volume_spec):
        manager.require_driver()
        if volume_spec['type'] == 'source_vol':
            update = manager.driver.create_cloned_volume(volume_spec['ref'],
                                                         volume_spec['source'])
        elif volume_spec['type'] == 'snap':
            update = manager.driver.create_volume_from_snapshot(volume_spec['ref'],
                                                                volume_spec['source'])
        else:
            update = manager.driver.create_volume(volume_spec['ref'])
        return dict(update or {})

    def revert(self, manager, volume_spec, result, **kwargs):
        if not manager.initialized:
            return
        # NOTE(cleanup): best effort, as Cinder's reschedule: the claim is given back next,
        # so the backend must not keep a half-made volume.
        try:
            manager.driver.delete_volume(volume_spec['ref'])
        except Exception:
            LOG.exception('Volume %s: could not clean up after a failed create',
                          volume_spec['ref'].id)


class CreateVolumeOnFinish(task.Task):
    """`available` and launched_at with the driver's columns, workers row gone; create.end.
    A volume from a backup is `restoring-backup` instead, and goes to a backup host."""

    def execute(self, manager, ctx, volume, hold, model_update, volume_spec):
        # NOTE(cinder): as Cinder, the volume names the service that made it (3.48's
        # service_uuid; shared_targets keeps its default, true, as no driver reports it).
        from_backup = volume_spec['type'] == 'backup'
        # NOTE(launched_at): also for a volume from a backup: the backend made it, so it
        # holds its capacity claim from now on (db/pools.py holds_claim).
        values = dict(model_update, service_uuid=manager.service_uuid, launched_at=utcnow())
        done = db_settle.Outcome(action='create', values=values,
                                 status=Status.RESTORING_BACKUP if from_backup else None)
        if db_settle.settle(manager.db, db_volumes.MACHINE, row=volume, hold=hold,
                            outcome=done) is not db_settle.Settled.DONE:
            raise exception.VolumeMovedOn(
                reason=f'volume {volume.id} left creating while the driver made it')
        if from_backup:
            backups.restore_new_volume(manager, ctx, volume=volume,
                                       backup_id=volume_spec['backup_id'])
            return
        manager.notifier.info(ctx, volume, 'create.end', reload=True)
