"""Scheduler manager (cinderlike-scheduler): places volumes, fed by services' capability reports.

Stateless apart from the reports it caches: what pools have promised lives in the database,
so any number of schedulers may run side by side.
"""

import datetime

from oslo_log import log as logging

from cinderlike import exception, manager, messages, quota, rpc
from cinderlike.backup import rpcapi as backup_rpcapi
from cinderlike.db import backups as db_backups
from cinderlike.db import groups as db_groups
from cinderlike.db import placements
from cinderlike.db import pools as db_pools
from cinderlike.db import services as db_services
from cinderlike.db import snapshots as db_snapshots
from cinderlike.db import volume_types as db_types
from cinderlike.db import volumes as db_volumes
from cinderlike.db import workers as db_workers
from cinderlike.periodic import periodic
from cinderlike.scheduler import (
    cleanup,
    filter_scheduler,
    groups,
    host_manager,
    migrations,
    rpcapi,
)
from cinderlike.scheduler import request as request_mod
from cinderlike.scheduler.flows import create_volume
from cinderlike.states.backups import Status as BackupStatus
from cinderlike.states.volumes import Status
from cinderlike.volume import rpcapi as volume_rpcapi

LOG = logging.getLogger(__name__)


class SchedulerManager(manager.Manager):
    """Endpoint of topic `cinder-scheduler` (direct and fanout)."""

    BINARY = db_services.SCHEDULER_BINARY
    TOPIC = rpc.SCHEDULER_TOPIC
    RPC_API_VERSION = rpcapi.RPC_API_VERSION

    def __init__(self, conf, *, host, db, coordinator=None):
        super().__init__(conf, host=host, db=db, coordinator=coordinator)
        self.host_manager = host_manager.HostManager(conf, db)
        self.filter_scheduler = filter_scheduler.FilterScheduler.from_conf(
            conf, volume_locations=self._volume_locations, volume_counts=self._volume_counts)
        self.volume_api = volume_rpcapi.VolumeAPI(conf)
        self.backup_api = backup_rpcapi.BackupAPI(conf)
        self.notifier = rpc.get_notifier(conf, publisher_id=f'scheduler.{host}')

    @property
    def capabilities(self) -> host_manager.HostManager:
        """The reports held, by (service name, host)."""
        return self.host_manager

    def _volume_locations(self, context, ids):
        return placements.locations(self.db, volume_ids=list(ids))

    def _volume_counts(self, context, volume_hosts):
        return placements.counts(self.db, hosts=volume_hosts)

    def init_host_with_rpc(self, context):
        """A scheduler that starts after the services asks them to report now (as Cinder's)."""
        volume_rpcapi.VolumeAPI(self.conf).publish_service_capabilities(context)
        backup_rpcapi.BackupAPI(self.conf).publish_service_capabilities(context)

    def update_service_capabilities(self, context, *, service_name, host, capabilities,
                                    cluster_name, timestamp, sequence):
        """Fanout from a volume or backup service: keep its report unless we hold a newer one."""
        report = host_manager.CapabilityReport(
            service_name=service_name, host=host, cluster_name=cluster_name,
            capabilities=capabilities, timestamp=datetime.datetime.fromisoformat(timestamp),
            sequence=sequence)
        kept = self.host_manager.update(report)
        LOG.debug('%(verb)s %(service)s capabilities from %(host)s (sequence %(seq)s)',
                  {'verb': 'Received' if kept else 'Ignoring older', 'service': service_name,
                   'host': host, 'seq': sequence})

    def create_volume(self, context, *, volume_id, request_spec, filter_properties):
        """Place a `creating` volume on a pool with a capacity claim and hand it over."""
        self.host_manager.wait_for_reports()
        create_volume.run(context, self, volume_id=volume_id, request_spec=request_spec,
                          filter_properties=filter_properties)

    def extend_volume(self, context, *, volume_id, new_size, reservations, request_spec):
        """Re-check the volume's own pool, claim the difference, then cast the extend."""
        self.host_manager.wait_for_reports()
        volume = db_volumes.get(self.db, volume_id=volume_id)
        pool_name = db_pools.pool_of(volume)
        delta = new_size - volume.size
        try:
            pool = self.filter_scheduler.backend_passes_filters(
                self.host_manager.pools(fresh_claims=True), pool_name, request_spec,
                {'new_size': new_size}, context)
            # NOTE(lost_cast): the claim is noted in the extend's workers row in its own
            # transaction, so a sweep of an extend lost after this point gives it back, and
            # an extend already settled (swept, a stale message) claims nothing.
            with self.db.writer() as s:
                if not db_volumes.lock_in(s, volume_id=volume_id, status=Status.EXTENDING) or \
                        db_workers.note_untaken(
                            s, resource_type=db_volumes.MACHINE.name, resource_id=volume_id,
                            status=Status.EXTENDING, values={'claimed': True}) is False:
                    LOG.info('Volume %s: extend settled before it was scheduled', volume_id)
                    return
                if not db_pools.claim(self.db, pool=pool_name, size_gb=delta, session=s,
                                      max_gb=create_volume.thick_ceiling(pool, request_spec)):
                    raise exception.NoValidBackend(
                        reason=f'Cannot place volume {volume_id} on {pool_name}.')
        except exception.NoValidBackend as error:
            self._extend_failed(context, volume, reservations, request_spec, error)
            return
        self.host_manager.consumed(pool, delta)
        self.volume_api.extend_volume(context, volume_id=volume_id, host=volume.host,
                                      new_size=new_size, reservations=reservations,
                                      cluster_name=volume.cluster_name)

    def _extend_failed(self, context, volume, reservations, request_spec, error):
        LOG.warning('Cannot extend volume %(id)s: %(error)s', {'id': volume.id, 'error': error})
        with self.db.writer() as s:
            if db_volumes.MACHINE.undo_begin(self.db, row_id=volume.id, action='extend',
                                             session=s):
                quota.rollback(self.db, context, reservations, session=s)
                db_workers.drop_untaken(s, resource_type=db_volumes.MACHINE.name,
                                        resource_ids=[volume.id])
        create_volume.notify_error(self.notifier, context, method='extend_volume',
                                   volume_id=volume.id, request_spec=request_spec,
                                   status=volume.previous_status, reason=error)
        messages.create(self.db, context, conf=self.conf,
                        action=messages.Action.EXTEND_VOLUME, resource_uuid=volume.id,
                        exception=error)

    def retype(self, context, *, volume_id, request_spec, filter_properties=None):
        """Find the pool for a `retyping` volume's new type: its own, or a migration."""
        self.host_manager.wait_for_reports()
        migrations.retype(self, context, volume_id=volume_id, request_spec=request_spec,
                          filter_properties=filter_properties)

    def migrate_volume(self, context, *, volume_id, backend, force_host_copy, request_spec):
        """Check the destination of a `starting` migration, place it, hand it over."""
        self.host_manager.wait_for_reports()
        migrations.migrate_volume(self, context, volume_id=volume_id, backend=backend,
                                  force_host_copy=force_host_copy, request_spec=request_spec)

    def create_snapshot(self, context, *, snapshot_id, volume_id, request_spec):
        """Cinder's: the volume's backend must be up and pass the filters for the
        snapshot's size; then the snapshot goes to it, else it ends in `error`.

        NOTE(capacity): a snapshot holds no capacity claim: a pool's claim counts volumes
        only (Cinder's allocated_capacity_gb), and the backend reports what snapshots use.
        """
        self.host_manager.wait_for_reports()
        volume = db_volumes.get(self.db, volume_id=volume_id)
        vtype = db_types.get(self.db, type_id=volume.volume_type_id)
        spec = dict(request_spec, volume_id=volume_id, volume_type={
            'id': vtype.id, 'name': vtype.name, 'extra_specs': dict(vtype.extra_specs)})
        try:
            self.filter_scheduler.backend_passes_filters(
                self.host_manager.pools(fresh_claims=True), db_pools.pool_of(volume), spec,
                {}, context)
        except exception.NoValidBackend as error:
            LOG.warning('Cannot create snapshot %(id)s: %(error)s',
                        {'id': snapshot_id, 'error': error})
            if self._snapshot_failed(snapshot_id):
                messages.create(self.db, context, conf=self.conf,
                                action=messages.Action.SNAPSHOT_CREATE,
                                resource_type=messages.Resource.VOLUME_SNAPSHOT,
                                resource_uuid=snapshot_id, exception=error)
            return
        self.volume_api.create_snapshot(context, snapshot_id=snapshot_id, host=volume.host,
                                        cluster_name=volume.cluster_name)

    def _snapshot_failed(self, snapshot_id) -> bool:
        """`error` for a snapshot create no backend takes, its workers row removed."""
        with self.db.writer() as s:
            if not db_snapshots.MACHINE.finish(self.db, row_id=snapshot_id, action='create',
                                               error=True, session=s):
                return False
            db_workers.drop_untaken(s, resource_type=db_snapshots.MACHINE.name,
                                    resource_ids=[snapshot_id])
        return True

    def manage_existing(self, context, *, volume_id, ref, request_spec):
        """Cinder's: the backend the request named must pass the filters (size 0: the
        object's size is not known yet); the volume gets the pool and goes to it, else it
        ends `error_managing`."""
        self.host_manager.wait_for_reports()
        volume = db_volumes.get(self.db, volume_id=volume_id)
        try:
            pool = self.filter_scheduler.backend_passes_filters(
                self.host_manager.pools(fresh_claims=True), volume.cluster_name or volume.host,
                request_spec, {}, context)
        except exception.NoValidBackend as error:
            LOG.warning('Cannot manage volume %(id)s: %(error)s', {'id': volume_id,
                                                                   'error': error})
            db_volumes.MACHINE.finish(self.db, row_id=volume_id, action='manage', error=True)
            return
        if placements.place_managed(self.db, volume_id=volume_id, host=pool.volume_host,
                                    cluster_name=pool.volume_cluster_name):
            self.volume_api.manage_existing(context, volume_id=volume_id, ref=ref,
                                            host=pool.volume_host,
                                            cluster_name=pool.volume_cluster_name)

    def manage_existing_snapshot(self, context, *, snapshot_id, volume_id, ref, request_spec):
        """Cinder's: the volume's backend must pass the filters; then the snapshot goes to
        it, else it ends in `error`."""
        self.host_manager.wait_for_reports()
        volume = db_volumes.get(self.db, volume_id=volume_id)
        try:
            self.filter_scheduler.backend_passes_filters(
                self.host_manager.pools(fresh_claims=True), db_pools.pool_of(volume),
                dict(request_spec, volume_id=volume_id), {}, context)
        except exception.NoValidBackend as error:
            LOG.warning('Cannot manage snapshot %(id)s: %(error)s', {'id': snapshot_id,
                                                                     'error': error})
            db_snapshots.MACHINE.finish(self.db, row_id=snapshot_id, action='create',
                                        error=True)
            return
        self.volume_api.manage_existing_snapshot(context, snapshot_id=snapshot_id, ref=ref,
                                                 host=volume.host,
                                                 cluster_name=volume.cluster_name)

    def create_group(self, context, *, group_id, request_spec):
        """Place a `creating` group on the backend that serves all its volume types and
        hand it over; with none it ends in `error` (Cinder's schedule_create_group)."""
        self.host_manager.wait_for_reports()
        try:
            pool = groups.choose_pool(self.filter_scheduler,
                                      self.host_manager.pools(fresh_claims=True), request_spec,
                                      context)
        except exception.NoValidBackend as error:
            LOG.warning('Failed to schedule group %(id)s: %(error)s',
                        {'id': group_id, 'error': error})
            db_groups.fail_unplaced(self.db, group_id=group_id)
            return
        if not db_groups.place(self.db, group_id=group_id, host=pool.volume_host,
                               cluster_name=pool.volume_cluster_name):
            LOG.info('Group %s left creating before it was placed', group_id)
            return
        self.volume_api.create_group(context, group_id=group_id, host=pool.volume_host,
                                     cluster_name=pool.volume_cluster_name)

    def create_backup(self, context, *, backup_id):
        """Cinder's: a live backup service in the volume's availability zone (the
        volume's own host's with `backup_use_same_host`, the parent's for an incremental
        posix backup) gets the backup; with none it ends in `error` and its volume (or
        snapshot) goes back to where it was."""
        backup = db_backups.get(self.db, backup_id=backup_id)
        volume = db_volumes.get_any(self.db, volume_id=backup.volume_id)
        zone = backup.availability_zone or volume.availability_zone
        try:
            if backup.host:
                # NOTE(incremental): a posix incremental must run where its parent is.
                if backup.host not in backup_rpcapi.live_hosts(self.conf, self.db):
                    raise exception.ServiceNotFound(service_id=db_services.BACKUP_BINARY,
                                                    host=backup.host)
                host = backup.host
            else:
                host = backup_rpcapi.choose_host(
                    self.conf, self.db, host=(volume.host or '').partition('@')[0] or None,
                    availability_zone=zone)
        except exception.ServiceNotFound as error:
            self._backup_unscheduled(context, backup, error)
            return
        if not db_backups.set_values(self.db, backup_id=backup_id, values={'host': host},
                                     expected=BackupStatus.CREATING):
            LOG.info('Backup %s left creating before it was scheduled', backup_id)
            return
        self.backup_api.create_backup(context, backup_id=backup_id, host=host)

    def _backup_unscheduled(self, context, backup, error):
        LOG.warning('Cannot schedule backup %(id)s: %(error)s',
                    {'id': backup.id, 'error': error})
        if db_backups.fail_unscheduled(self.db, backup=backup,
                                       reason='Service not found for creating backup.'):
            messages.create(self.db, context, conf=self.conf,
                            action=messages.Action.BACKUP_CREATE,
                            resource_type=messages.Resource.VOLUME_BACKUP,
                            resource_uuid=backup.id,
                            detail=messages.Detail.BACKUP_SCHEDULE_ERROR)

    def get_pools(self, context, *, filters=None):
        """Cinder's get_pools: each live pool with its capabilities; allocated and
        provisioned capacity are the database's claims (the same from every scheduler)."""
        self.host_manager.wait_for_reports()
        filters = dict(filters or {})
        # NOTE(backend_state): an admin's view, read now: a freeze or thaw shows at once.
        pools = self.host_manager.pools(fresh_claims=True, fresh_services=True)
        type_ref = filters.pop('volume_type', None)
        if type_ref:
            pools = self._pools_for_type(context, pools, type_ref)
        return host_manager.describe_pools(pools, filters)

    def _pools_for_type(self, context, pools, type_ref):
        """The pools the filters accept for a volume of that type (any size fits)."""
        vtype = db_types.get_by_name_or_id(self.db, ctx_project_id=context.project_id,
                                           is_admin=context.is_admin, name_or_id=type_ref)
        spec = {'id': vtype.id, 'name': vtype.name, 'extra_specs': dict(vtype.extra_specs)}
        request = request_mod.PlacementRequest.build(
            {'volume_type': spec, 'volume_properties': {'size': 0}},
            {'volume_type': spec, 'resource_type': spec, 'size': 0})
        return self.filter_scheduler.filter_pools(pools, request)

    def work_cleanup(self, context, *, cleanup_request):
        """Call from the API (POST /workers/cleanup): cast do_cleanup to each selected
        service's cluster or host; (cleaning, unavailable) as service dicts."""
        cleaning, unavailable = cleanup.distribute(
            self.db, conf=self.conf, request=cleanup_request, volume_api=self.volume_api,
            scheduler_api=rpcapi.SchedulerAPI(self.conf), backup_api=self.backup_api,
            ctx=context)
        return [cleanup.describe(s) for s in cleaning], [cleanup.describe(s) for s in unavailable]

    def do_cleanup(self, context, *, cleanup_request):
        """Cast from work_cleanup: volumes a stopped scheduler left unplaced go to error."""
        until = cleanup_request.get('until')
        cleanup.clean_unplaced(self.db, context, conf=self.conf,
                               until=datetime.datetime.fromisoformat(until) if until else None)

    @periodic(spacing_opt='message_reap_interval')
    def _clean_expired_messages(self, context):
        messages.purge_expired(self.db)

    @periodic(spacing_opt='reservation_clean_interval')
    def _clean_expired_reservation(self, context):
        quota.expire_reservations(self.db)

    @periodic(spacing_opt='capacity_check_interval')
    def _check_capacity_drift(self, context):
        """Log every pool whose claim differs from its live volumes (cinderlike-manage
        capacity check --fix repairs it)."""
        for item in db_pools.drift(self.db):
            LOG.warning('Capacity drift on pool %(pool)s: %(claimed)s GB claimed, '
                        '%(volumes)s GB of live volumes', {
                            'pool': item.pool, 'claimed': item.claimed_gb,
                            'volumes': item.volumes_gb})
