"""Volume manager (cinderlike-volume): one backend's RPC endpoint, owning that backend's driver."""

import contextlib
import time

from oslo_log import log as logging

from cinderlike import exception, locks, manager, notifications, rpc
from cinderlike.backup import rpcapi as backup_rpcapi
from cinderlike.conf import volume as volume_conf
from cinderlike.db import attachments as db_attachments
from cinderlike.db import clusters as db_clusters
from cinderlike.db import replication as db_replication
from cinderlike.db import services as db_services
from cinderlike.drivers import volume as volume_drivers
from cinderlike.periodic import periodic
from cinderlike.scheduler import rpcapi as scheduler_rpcapi
from cinderlike.states import replication as rep_states
from cinderlike.volume import (
    attachments,
    backups,
    capabilities,
    create,
    delete,
    extend,
    group_snapshots,
    groups,
    manage_existing,
    migrate,
    periodics,
    recovery,
    retype,
    rpcapi,
    snapshots,
)

LOG = logging.getLogger(__name__)


class VolumeManager(periodics.VolumePeriodics, manager.Manager):
    """Endpoint of `cinder-volume` (server host@backend), its backend topic and cluster topic."""

    BINARY = db_services.VOLUME_BINARY
    TOPIC = rpc.VOLUME_TOPIC
    RPC_API_VERSION = rpcapi.RPC_API_VERSION

    def __init__(self, conf, *, host, db, backend, coordinator=None, sleep=time.sleep):
        """:raises VolumeDriverNotFound: when the backend's `volume_driver` is unknown."""
        super().__init__(conf, host=host, db=db, coordinator=coordinator)
        self.backend = backend
        self.configuration = volume_conf.register_backend(conf, backend)
        driver_cls = volume_drivers.driver_class(self.configuration.volume_driver)
        if self.cluster_name and not driver_cls.SUPPORTS_ACTIVE_ACTIVE:
            raise exception.VolumeDriverException(
                message='Active-Active configuration is not currently supported by driver '
                        f'{self.configuration.volume_driver}.')
        volume_conf.register_backend(conf, backend, driver_cls.DRIVER_OPTS)
        self.driver = driver_cls(self.configuration, host=host)
        self.initialized = False
        self._sleep = sleep
        self.scheduler_api = scheduler_rpcapi.SchedulerAPI(conf)
        self.backup_api = backup_rpcapi.BackupAPI(conf)
        self._publisher = scheduler_rpcapi.CapabilityPublisher(
            self.scheduler_api, service_name='volume', host=host,
            cluster_name=self.cluster_name)
        self.notifier = notifications.VolumeNotifier(conf, db, host=host)
        self.snapshot_notifier = notifications.SnapshotNotifier(conf, db, host=host)
        self.group_notifier = notifications.GroupNotifier(conf, host=host)
        self.group_snapshot_notifier = notifications.GroupSnapshotNotifier(conf, host=host)
        self.capacity_notifier = rpc.get_notifier(conf, publisher_id=f'capacity.{host}')

    @property
    def availability_zone(self) -> str:
        return (self.configuration.backend_availability_zone
                or self.conf.storage_availability_zone)

    @property
    def cluster_name(self) -> str | None:
        return f'{self.conf.cluster}@{self.backend}' if self.conf.cluster else None

    def rpc_targets(self) -> list[tuple[str, str]]:
        """Cinder's three queues: `cinder-volume` (server host@backend, gets the fanouts),
        `cinder-volume.host@backend`, and `cinder-volume.cluster@backend` when clustered."""
        targets = [(self.TOPIC, self.host),
                   (rpc.volume_topic(self.host), rpc.server_of(self.host))]
        if self.cluster_name:
            targets.append((rpc.volume_topic(self.cluster_name),
                            rpc.server_of(self.cluster_name)))
        return targets

    def periodic_option(self, name):
        """A backend option (its section, then [backend_defaults]), else a [DEFAULT] one."""
        if name in self.conf[volume_conf.GROUP]:
            return getattr(self.configuration, name)
        return self.conf[name]

    def is_working(self) -> bool:
        return self.initialized

    def added_to_cluster(self, context):
        """This backend joined its cluster: its volumes become the cluster's (Cinder's
        _include_resources_in_cluster), so any member serves them."""
        count = db_clusters.include_volumes(self.db, host=self.host,
                                            cluster_name=self.cluster_name)
        groups_count = db_clusters.include_groups(self.db, host=self.host,
                                                  cluster_name=self.cluster_name)
        LOG.info('%d volumes and %d groups of host %s included in cluster %s.', count,
                 groups_count, self.host, self.cluster_name)

    def init_host(self, context):
        """Initialise the driver (with retries) and settle what this service left in flight
        when it stopped (Cinder's start-up do_cleanup)."""
        self._init_driver(context)
        if self.initialized:
            recovery.do_cleanup(self, context, recovery.own_request(self))
            # NOTE(exports): a backend's exports may not outlive its service (a target
            # daemon restarted with it); attached hosts must reach their volumes again.
            attachments.reexport(self, context, db_attachments.connected_of_backend(
                self.db, host=self.host, cluster_name=self.cluster_name))

    def init_host_with_rpc(self, context):
        """Tell the schedulers what we offer, now that our queues exist.

        NOTE(first-report): Cinder reports in init_host, before its RPC servers consume. A
        new backend's queues do not exist then, so a create the scheduler placed on the
        reported pool, or an API call, was dropped by RabbitMQ until they did.
        """
        self._report_capabilities(context)

    def _init_driver(self, context):
        attempts = self.configuration.reinit_driver_count + 1
        for attempt in range(1, attempts + 1):
            try:
                self.driver.do_setup(context)
                self.driver.check_for_setup_error()
            except Exception:
                LOG.exception('Failed to initialize driver of backend %s (attempt %d of %d).',
                              self.host, attempt, attempts)
                if attempt < attempts:
                    self._sleep(2 ** (attempt - 1))
                continue
            self.initialized = True
            LOG.info('Driver %s of backend %s initialized.', type(self.driver).__name__,
                     self.host)
            return
        LOG.error('Driver of backend %s could not be initialized; the service will show down.',
                  self.host)

    def publish_service_capabilities(self, context):
        """Fanout from the API side: report our capabilities to the schedulers now."""
        self._report_capabilities(context)

    def get_capabilities(self, context, *, discover=False) -> dict:
        """Call from the API (GET /capabilities/{host}): the driver's stats and the standard
        properties; *discover* asks the driver to refresh its stats first."""
        # NOTE(uninitialized): as Cinder, a driver that never came up has no capabilities,
        # so the API shows every field empty rather than failing.
        if not self.initialized:
            return {}
        return capabilities.describe(self.driver.get_volume_stats(refresh=discover))

    def require_driver(self) -> None:
        """:raises DriverNotInitialized: while init_host has not brought the driver up."""
        if not self.initialized:
            raise exception.DriverNotInitialized()

    def create_volume(self, context, *, volume_id, request_spec, filter_properties,
                      allow_reschedule=True):
        """Cast from the scheduler: create a volume placed on this backend."""
        LOG.debug('create_volume %s received on %s', volume_id, self.host)
        if self.cluster_name:
            # NOTE(cluster): whichever member took the cast owns the create from now on.
            db_clusters.adopt_volume(self.db, volume_id=volume_id, host=self.host)
        # NOTE(clone): as Cinder, a clone holds its source's delete lock (a volume from a
        # snapshot the snapshot's), so no member deletes the source while it is copied.
        spec = request_spec or {}
        source = (locks.delete_volume(spec['source_volid']) if spec.get('source_volid')
                  else locks.delete_snapshot(spec['snapshot_id']) if spec.get('snapshot_id')
                  else None)
        with (self.coordinator.get_lock(source) if source else contextlib.nullcontext()):
            create.create_volume(self, context, volume_id=volume_id, request_spec=request_spec,
                                 filter_properties=filter_properties,
                                 allow_reschedule=allow_reschedule)

    def delete_volume(self, context, *, volume_id, cascade=False, unmanage_only=False):
        """Cast from the API: delete a `deleting` volume, one delete per volume at a time;
        with *cascade* its `deleting` snapshots go first; *unmanage_only* forgets an
        `unmanaging` one, its data left on the backend."""
        LOG.debug('delete_volume %s received on %s', volume_id, self.host)
        with self.coordinator.get_lock(locks.delete_volume(volume_id)):
            try:
                gone = delete.delete_volume(self, context, volume_id=volume_id,
                                            cascade=cascade, unmanage_only=unmanage_only)
            except exception.VolumeNotFound:
                LOG.info('Volume %s was already deleted', volume_id)
                gone = True
            if gone:
                self.coordinator.remove_locks(locks.of_volume(volume_id))

    def create_snapshot(self, context, *, snapshot_id):
        """Cast from the scheduler: take a `creating` snapshot of a volume of this backend."""
        LOG.debug('create_snapshot %s received on %s', snapshot_id, self.host)
        try:
            snapshots.create_snapshot(self, context, snapshot_id=snapshot_id)
        except exception.SnapshotNotFound:
            LOG.warning('Snapshot %s to create no longer exists', snapshot_id)

    def delete_snapshot(self, context, *, snapshot_id, unmanage_only=False):
        """Cast from the API: delete a `deleting` snapshot (forget an `unmanaging` one with
        *unmanage_only*), one delete at a time."""
        LOG.debug('delete_snapshot %s received on %s', snapshot_id, self.host)
        with self.coordinator.get_lock(locks.delete_snapshot(snapshot_id)):
            try:
                gone = snapshots.delete_snapshot(self, context, snapshot_id=snapshot_id,
                                                 unmanage_only=unmanage_only)
            except exception.SnapshotNotFound:
                LOG.info('Snapshot %s was already deleted', snapshot_id)
                gone = True
            if gone:
                self.coordinator.remove_locks(locks.of_snapshot(snapshot_id))

    def create_group(self, context, *, group_id):
        """Cast from the scheduler: create a `creating` group placed on this backend."""
        LOG.debug('create_group %s received on %s', group_id, self.host)
        try:
            groups.create_group(self, context, group_id=group_id)
        except exception.GroupNotFound:
            LOG.warning('Group %s to create no longer exists', group_id)

    def create_group_from_src(self, context, *, group_id):
        """Cast from the API: make a `creating` group's members from their sources here."""
        LOG.debug('create_group_from_src %s received on %s', group_id, self.host)
        try:
            groups.create_group_from_src(self, context, group_id=group_id)
        except exception.GroupNotFound:
            LOG.warning('Group %s to create no longer exists', group_id)

    def update_group(self, context, *, group_id, add_volumes, remove_volumes):
        """Cast from the API: add and remove members of an `updating` group."""
        LOG.debug('update_group %s received on %s', group_id, self.host)
        try:
            groups.update_group(self, context, group_id=group_id, add=add_volumes,
                                remove=remove_volumes)
        except exception.GroupNotFound:
            LOG.warning('Group %s to update no longer exists', group_id)

    def delete_group(self, context, *, group_id):
        """Cast from the API: delete a `deleting` group and its `deleting` members."""
        LOG.debug('delete_group %s received on %s', group_id, self.host)
        try:
            groups.delete_group(self, context, group_id=group_id)
        except exception.GroupNotFound:
            LOG.info('Group %s was already deleted', group_id)

    def create_group_snapshot(self, context, *, group_snapshot_id):
        """Cast from the API: snapshot every member of a group of this backend."""
        LOG.debug('create_group_snapshot %s received on %s', group_snapshot_id, self.host)
        try:
            group_snapshots.create_group_snapshot(self, context,
                                                  group_snapshot_id=group_snapshot_id)
        except exception.GroupSnapshotNotFound:
            LOG.warning('Group snapshot %s to create no longer exists', group_snapshot_id)

    def delete_group_snapshot(self, context, *, group_snapshot_id):
        """Cast from the API: delete a `deleting` group snapshot and its members."""
        LOG.debug('delete_group_snapshot %s received on %s', group_snapshot_id, self.host)
        try:
            group_snapshots.delete_group_snapshot(self, context,
                                                  group_snapshot_id=group_snapshot_id)
        except exception.GroupSnapshotNotFound:
            LOG.info('Group snapshot %s was already deleted', group_snapshot_id)

    def revert_to_snapshot(self, context, *, volume_id, snapshot_id):
        """Cast from the API: revert a `reverting` volume to its latest snapshot."""
        LOG.debug('revert_to_snapshot %s to %s received on %s', volume_id, snapshot_id,
                  self.host)
        snapshots.revert_to_snapshot(self, context, volume_id=volume_id,
                                     snapshot_id=snapshot_id)

    def extend_volume(self, context, *, volume_id, new_size, reservations):
        """Cast from the scheduler: grow an `extending` volume to *new_size* GiB."""
        LOG.debug('extend_volume %s to %s received on %s', volume_id, new_size, self.host)
        try:
            extend.extend_volume(self, context, volume_id=volume_id, new_size=new_size,
                                 reservations=reservations)
        except exception.VolumeNotFound:
            LOG.warning('Volume %s to extend no longer exists', volume_id)

    def retype(self, context, *, volume_id, new_type_id, reservations):
        """Cast from the scheduler: give a `retyping` volume its new type on this backend."""
        LOG.debug('retype %s to %s received on %s', volume_id, new_type_id, self.host)
        try:
            retype.retype(self, context, volume_id=volume_id, new_type_id=new_type_id,
                          reservations=reservations)
        except exception.VolumeNotFound:
            LOG.warning('Volume %s to retype no longer exists', volume_id)

    def migrate_volume(self, context, *, volume_id, target_id, force_host_copy, new_type_id,
                       reservations):
        """Cast from the scheduler: move a `starting` volume of this backend to the
        destination row *target_id* (the migration_status CAS admits one at a time)."""
        LOG.debug('migrate_volume %s to %s received on %s', volume_id, target_id, self.host)
        try:
            migrate.migrate_volume(self, context, volume_id=volume_id, target_id=target_id,
                                   force_host_copy=force_host_copy, new_type_id=new_type_id,
                                   reservations=reservations)
        except exception.VolumeNotFound:
            LOG.warning('Volume %s to migrate no longer exists', volume_id)

    def migrate_volume_completion(self, context, *, volume_id, target_id, error) -> str:
        """Call from the API (Nova's swap callback): finish or undo the migration; the
        id that stays."""
        LOG.debug('migrate_volume_completion %s/%s received on %s', volume_id, target_id,
                  self.host)
        self.require_driver()
        return migrate.complete(self, context, volume_id=volume_id, target_id=target_id,
                                error=error)
    # --- manage existing (1.10) -------------------------------------------------------

    def manage_existing(self, context, *, volume_id, ref):
        """Cast from the scheduler: adopt the backend object *ref* as a `managing` volume."""
        LOG.debug('manage_existing %s received on %s', volume_id, self.host)
        if self.cluster_name:
            db_clusters.adopt_volume(self.db, volume_id=volume_id, host=self.host)
        manage_existing.manage_existing(self, context, volume_id=volume_id, ref=ref)

    def manage_existing_snapshot(self, context, *, snapshot_id, ref):
        """Cast from the scheduler: adopt the backend object *ref* as a `creating` snapshot."""
        LOG.debug('manage_existing_snapshot %s received on %s', snapshot_id, self.host)
        manage_existing.manage_existing_snapshot(self, context, snapshot_id=snapshot_id,
                                                 ref=ref)

    def get_manageable_volumes(self, context, *, marker, limit, offset, sort_keys,
                               sort_dirs) -> list[dict]:
        """Call from the API: the backend's volumes, managed or not, sorted and paged."""
        return manage_existing.get_manageable_volumes(
            self, context, marker=marker, limit=limit, offset=offset, sort_keys=sort_keys,
            sort_dirs=sort_dirs)

    def get_manageable_snapshots(self, context, *, marker, limit, offset, sort_keys,
                                 sort_dirs) -> list[dict]:
        """Call from the API: the backend's snapshots, managed or not, sorted and paged."""
        return manage_existing.get_manageable_snapshots(
            self, context, marker=marker, limit=limit, offset=offset, sort_keys=sort_keys,
            sort_dirs=sort_dirs)

    def do_cleanup(self, context, *, cleanup_request):
        """Cast from the scheduler (POST /workers/cleanup): settle the selected rows."""
        self.require_driver()
        recovery.do_cleanup(self, context, recovery.CleanupRequest.from_dict(cleanup_request))

    @periodic(spacing_opt='auto_cleanup_interval')
    def _auto_cleanup(self, context):
        """Beyond Cinder: take over the in-flight operations of a down cluster member."""
        if self.conf.auto_cleanup_enabled and self.initialized:
            recovery.clean_down_peers(self, context)

    @periodic(spacing_opt='lost_operation_interval')
    def _sweep_lost(self, context):
        """Settle operations the API accepted that no service took up (lost casts)."""
        if self.initialized:
            recovery.sweep_lost(self, context)

    # --- connections (calls from the API, but remove_export) ---------------------

    def attachment_update(self, context, *, volume_id, attachment_id, connector):
        """Connect a reserved attachment; the connection info."""
        LOG.debug('attachment_update %s of %s received on %s', attachment_id, volume_id,
                  self.host)
        return attachments.attachment_update(self, context, volume_id=volume_id,
                                             attachment_id=attachment_id,
                                             connector=connector)

    def attachment_delete(self, context, *, volume_id, attachment_id):
        """Disconnect a detaching attachment."""
        LOG.debug('attachment_delete %s of %s received on %s', attachment_id, volume_id,
                  self.host)
        attachments.attachment_delete(self, context, volume_id=volume_id,
                                      attachment_id=attachment_id)

    def initialize_connection(self, context, *, volume_id, connector):
        """Legacy: export the volume to *connector*; the connection info."""
        return attachments.initialize_connection(self, context, volume_id=volume_id,
                                                 connector=connector)

    def terminate_connection(self, context, *, volume_id, connector, force=False):
        """Legacy: stop serving *connector*'s host."""
        attachments.terminate_connection(self, context, volume_id=volume_id,
                                         connector=connector, force=force)

    def attach_volume(self, context, *, volume_id, instance_uuid, host_name, mountpoint,
                      mode):
        """Legacy os-attach: record the attachment; its id."""
        return attachments.attach_volume(self, context, volume_id=volume_id,
                                         instance_uuid=instance_uuid, host_name=host_name,
                                         mountpoint=mountpoint, mode=mode)

    def detach_volume(self, context, *, volume_id, attachment_id=None):
        """Legacy os-detach: remove the export and the attachment."""
        attachments.detach_volume(self, context, volume_id=volume_id,
                                  attachment_id=attachment_id)

    def remove_export(self, context, *, volume_id):
        """Cast: remove the volume's export."""
        attachments.remove_export(self, context, volume_id=volume_id)

    # --- backups (calls from a backup host) --------------------------------------------

    def get_backup_device(self, context, *, backup_id):
        """What the backup host reads for a `creating` backup: {'is_snapshot', 'id'}."""
        LOG.debug('get_backup_device %s received on %s', backup_id, self.host)
        return backups.get_backup_device(self, context, backup_id=backup_id)

    def remove_backup_device(self, context, *, backup_id):
        """Remove the backup's temporary volume or snapshot, if any."""
        backups.remove_backup_device(self, context, backup_id=backup_id)

    def initialize_connection_snapshot(self, context, *, snapshot_id, connector):
        """The snapshot's connection info for *connector*'s host."""
        return backups.initialize_connection_snapshot(self, context, snapshot_id=snapshot_id,
                                                      connector=connector)

    def terminate_connection_snapshot(self, context, *, snapshot_id, connector):
        """Stop serving the snapshot to *connector*'s host."""
        backups.terminate_connection_snapshot(self, context, snapshot_id=snapshot_id,
                                              connector=connector)

    def remove_export_snapshot(self, context, *, snapshot_id):
        """Cast: remove the snapshot's export."""
        backups.remove_export_snapshot(self, context, snapshot_id=snapshot_id)

    # --- management plane (os-services) ----------------------------------------------

    def freeze_host(self, context) -> bool:
        """Call (os-services freeze): tell the driver, then disable scheduling here with
        reason `frozen` (the API has set `frozen` already)."""
        try:
            self.driver.freeze_backend(context)
        except exception.VolumeDriverException:
            # NOTE(freeze): as Cinder, the backend's consent is not needed to freeze.
            LOG.warning('Error encountered on backend %s during freeze operation, service is '
                        'frozen, however notification to driver has failed.', self.host)
        db_services.set_disabled(self.db, host=self.host, binary=self.BINARY, disabled=True,
                                 reason='frozen')
        LOG.info('Set backend %s status to frozen successfully.', self.host)
        return True

    def thaw_host(self, context) -> bool:
        """Call (os-services thaw): the driver thaws, then scheduling is enabled again;
        False, and still disabled, when the driver refused."""
        try:
            self.driver.thaw_backend(context)
        except exception.VolumeDriverException:
            LOG.error('Error encountered on backend %s during thaw operation, service will '
                      'remain frozen.', self.host)
            return False
        db_services.set_disabled(self.db, host=self.host, binary=self.BINARY, disabled=False,
                                 reason='')
        LOG.info('Thawed backend %s successfully.', self.host)
        return True

    def failover_host(self, context, *, secondary_backend_id=None):
        """Cast (os-services failover_host) on a `failing-over` backend.

        NOTE(failover): no cinderlike driver replicates, so the driver's refusal is the
        outcome: failover-error and disabled, as Cinder records a failed failover; the
        volumes are left as they are, for there is no replica to move them to.
        """
        try:
            self.driver.failover_host(context, [], secondary_id=secondary_backend_id)
        except exception.UnableToFailOver as error:
            LOG.error('Error encountered during failover on host %s to %s: %s', self.host,
                      secondary_backend_id, error)
            db_replication.record_failover(
                self.db, host=self.host, cluster_name=self.cluster_name,
                values={'disabled': True,
                        'replication_status': rep_states.Status.FAILOVER_ERROR})
