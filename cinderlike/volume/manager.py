"""Volume manager (cinderlike-volume): one backend's RPC endpoint, owning that backend's driver."""

import time

from oslo_log import log as logging

from cinderlike import manager, rpc
from cinderlike.conf import volume as volume_conf
from cinderlike.drivers import volume as volume_drivers
from cinderlike.scheduler import rpcapi as scheduler_rpcapi
from cinderlike.volume import periodics, rpcapi

LOG = logging.getLogger(__name__)


class VolumeManager(periodics.VolumePeriodics, manager.Manager):
    """Endpoint of `cinder-volume` (server host@backend), its backend topic and cluster topic."""

    BINARY = 'cinder-volume'
    TOPIC = rpc.VOLUME_TOPIC
    RPC_API_VERSION = rpcapi.RPC_API_VERSION

    def __init__(self, conf, *, host, db, backend, coordinator=None, sleep=time.sleep):
        """:raises VolumeDriverNotFound: when the backend's `volume_driver` is unknown."""
        super().__init__(conf, host=host, db=db, coordinator=coordinator)
        self.backend = backend
        self.configuration = volume_conf.register_backend(conf, backend)
        driver_cls = volume_drivers.driver_class(self.configuration.volume_driver)
        volume_conf.register_backend(conf, backend, driver_cls.DRIVER_OPTS)
        self.driver = driver_cls(self.configuration, host=host)
        self.initialized = False
        self._sleep = sleep
        self._publisher = scheduler_rpcapi.CapabilityPublisher(
            scheduler_rpcapi.SchedulerAPI(conf), service_name='volume', host=host,
            cluster_name=self.cluster_name)

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
        return getattr(self.configuration, name)

    def is_working(self) -> bool:
        return self.initialized

    def init_host(self, context):
        """Initialise the driver (with retries), then tell the schedulers what we offer."""
        self._init_driver(context)
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
