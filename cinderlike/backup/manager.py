"""Backup manager (cinderlike-backup): RPC endpoint of one backup host, owning its backup
driver. Each method hands off to the module of its operation (create, restore, delete,
records); start-up settles what this host left in flight (recovery)."""

from oslo_log import log as logging

from cinderlike import connector as host_connector
from cinderlike import exception, manager, notifications, rpc
from cinderlike.backup import create, delete, records, recovery, restore, rpcapi
from cinderlike.db import services as db_services
from cinderlike.drivers.backup import base
from cinderlike.periodic import periodic
from cinderlike.scheduler import rpcapi as scheduler_rpcapi
from cinderlike.volume import rpcapi as volume_rpcapi

LOG = logging.getLogger(__name__)


class BackupManager(manager.Manager):
    """Endpoint of topic `cinder-backup`, server = this host."""

    BINARY = db_services.BACKUP_BINARY
    TOPIC = rpc.BACKUP_TOPIC
    RPC_API_VERSION = rpcapi.RPC_API_VERSION

    def __init__(self, conf, *, host, db, coordinator=None, driver=None, connector=None):
        """*driver* and *connector* default to `backup_driver` and cinderlike.connector.

        :raises BackupDriverNotFound: when `backup_driver` is unknown.
        """
        super().__init__(conf, host=host, db=db, coordinator=coordinator)
        if driver is None:
            driver_cls = base.driver_class(conf.backup_driver)
            conf.register_opts(driver_cls.DRIVER_OPTS)
            driver = driver_cls(conf)
        self.driver = driver
        self.driver_name = type(driver).service_name()
        # The module that attaches volumes to this host (os-brick's role).
        self.connector = connector or host_connector
        self.driver_ready = False
        self.volume_api = volume_rpcapi.VolumeAPI(conf)
        self.backup_api = rpcapi.BackupAPI(conf)
        self.notifier = notifications.BackupNotifier(conf, host=host)
        self._publisher = scheduler_rpcapi.CapabilityPublisher(
            scheduler_rpcapi.SchedulerAPI(conf), service_name='backup', host=host)

    def is_working(self) -> bool:
        """No heartbeat (the service shows down) until the driver's check passed."""
        return self.driver_ready

    def require_driver(self) -> None:
        """:raises DriverNotInitialized: while the driver's check has not passed."""
        if not self.driver_ready:
            raise exception.DriverNotInitialized()

    def init_host(self, context):
        """Check the driver (retried every backup_driver_init_check_interval until it
        passes) and settle what this host left in flight."""
        self._setup_backup_driver(context)

    def init_host_with_rpc(self, context):
        """Tell the schedulers about us once our queue exists (volume manager's
        NOTE(first-report))."""
        self.publish_service_capabilities(context)

    def _setup_backup_driver(self, context) -> bool:
        """Cinder's _setup_backup_driver: the check, then the start-up cleanup once."""
        try:
            self.driver.check_for_setup_error()
        except Exception:
            LOG.exception('Backup driver %s of %s failed its check; retrying in %d s',
                          self.driver_name, self.host,
                          self.conf.backup_driver_init_check_interval)
            return False
        self.driver_ready = True
        LOG.info('Backup driver %s of %s initialized', self.driver_name, self.host)
        recovery.cleanup(self, context)
        return True

    @periodic(spacing_opt='backup_driver_init_check_interval')
    def _retry_driver_setup(self, context):
        if not self.driver_ready and self._setup_backup_driver(context):
            self.publish_service_capabilities(context)

    @periodic(spacing_opt='lost_operation_interval')
    def _sweep_lost(self, context):
        """Settle backup operations the API accepted that no service took up (lost casts)."""
        if self.driver_ready:
            recovery.sweep_lost(self, context)

    def publish_service_capabilities(self, context):
        """Fanout from the API side: report our capabilities to the schedulers now."""
        self._publisher.publish(context, self._capabilities)

    @periodic(spacing_opt='backup_driver_stats_polling_interval')
    def _periodic_report_capabilities(self, context):
        self.publish_service_capabilities(context)

    def _capabilities(self) -> dict:
        # Cinder's backup report: the scheduler picks backup hosts whose state is up in
        # the requested availability zone.
        return {'backend_state': self.is_working(), 'driver_name': self.driver_name,
                'availability_zone': self.availability_zone}

    # --- RPC methods -------------------------------------------------------------------

    def create_backup(self, context, *, backup_id):
        """Cast from the scheduler: back a `creating` backup's source up."""
        LOG.debug('create_backup %s received on %s', backup_id, self.host)
        try:
            create.create_backup(self, context, backup_id=backup_id)
        except exception.BackupNotFound:
            LOG.warning('Backup %s to create no longer exists', backup_id)

    def restore_backup(self, context, *, backup_id, volume_id, volume_is_new):
        """Cast from the API (or a volume service): restore into a volume."""
        LOG.debug('restore_backup %s to %s received on %s', backup_id, volume_id, self.host)
        try:
            restore.restore_backup(self, context, backup_id=backup_id, volume_id=volume_id,
                                   volume_is_new=volume_is_new)
        except exception.BackupNotFound:
            LOG.warning('Backup %s to restore no longer exists', backup_id)

    def delete_backup(self, context, *, backup_id):
        """Cast from the API: delete a `deleting` backup."""
        LOG.debug('delete_backup %s received on %s', backup_id, self.host)
        try:
            delete.delete_backup(self, context, backup_id=backup_id)
        except exception.BackupNotFound:
            LOG.info('Backup %s was already deleted', backup_id)

    def export_record(self, context, *, backup_id):
        """Call from the API: {backup_service, backup_url}."""
        return records.export_record(self, context, backup_id=backup_id)

    def import_record(self, context, *, backup_id, backup_service, backup_url,
                      backup_hosts):
        """Cast from the API (or another backup host): import a `creating` record."""
        records.import_record(self, context, backup_id=backup_id,
                              backup_service=backup_service, backup_url=backup_url,
                              backup_hosts=backup_hosts)

    def reset_status(self, context, *, backup_id, status):
        """Cast from the API: admin reset-state."""
        records.reset_status(self, context, backup_id=backup_id, status=status)

    def do_cleanup(self, context, *, cleanup_request):
        """Cast from the scheduler (POST /workers/cleanup): settle the selected rows."""
        self.require_driver()
        recovery.do_cleanup(self, context, cleanup_request)

    def check_support_to_force_delete(self, context):
        """Call from the API: whether the driver deletes backups in any status."""
        return self.driver.SUPPORTS_FORCE_DELETE
