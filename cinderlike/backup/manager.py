"""Backup manager (cinderlike-backup): RPC endpoint of one backup host."""

from oslo_log import log as logging

from cinderlike import manager, rpc
from cinderlike.backup import rpcapi
from cinderlike.db import services as db_services
from cinderlike.periodic import periodic
from cinderlike.scheduler import rpcapi as scheduler_rpcapi

LOG = logging.getLogger(__name__)


class BackupManager(manager.Manager):
    """Endpoint of topic `cinder-backup`, server = this host."""

    BINARY = db_services.BACKUP_BINARY
    TOPIC = rpc.BACKUP_TOPIC
    RPC_API_VERSION = rpcapi.RPC_API_VERSION

    def __init__(self, conf, *, host, db, coordinator=None):
        super().__init__(conf, host=host, db=db, coordinator=coordinator)
        self._publisher = scheduler_rpcapi.CapabilityPublisher(
            scheduler_rpcapi.SchedulerAPI(conf), service_name='backup', host=host)

    def init_host(self, context):
        """Tell the schedulers this backup host exists."""
        self.publish_service_capabilities(context)

    def publish_service_capabilities(self, context):
        """Fanout from the API side: report our capabilities to the schedulers now."""
        self._publisher.publish(context, self._capabilities)

    @periodic(spacing_opt='backup_driver_stats_polling_interval')
    def _periodic_report_capabilities(self, context):
        self.publish_service_capabilities(context)

    def _capabilities(self) -> dict:
        # Cinder's backup report: the scheduler picks backup hosts whose state is up in
        # the requested availability zone.
        return {'backend_state': self.is_working(),
                'availability_zone': self.availability_zone}
