"""Base of the scheduler, volume and backup managers: the RPC endpoints service.py serves.

Public methods of a manager are its RPC methods (same names as in its rpcapi.py); the hooks
service.py calls (init_host, init_host_with_rpc, is_working, rpc_targets) follow Cinder's.
"""

import oslo_messaging as messaging
from oslo_log import log as logging

from cinderlike import log_levels
from cinderlike.db import services as db_services
from cinderlike.db import workers as db_workers

LOG = logging.getLogger(__name__)


class Manager:
    """What service.py needs from a manager; subclasses set BINARY, TOPIC, RPC_API_VERSION."""

    BINARY: str
    TOPIC: str
    RPC_API_VERSION: str
    # The process's cinderlike.metrics.Metrics, set by service.py once built; None outside a
    # daemon (tests that drive a manager directly).
    metrics = None

    def __init__(self, conf, *, host, db, coordinator=None):
        self.conf = conf
        self.host = host
        self.db = db
        self.coordinator = coordinator
        # oslo.messaging's dispatcher checks incoming versions against the endpoint's target.
        self.target = messaging.Target(version=self.RPC_API_VERSION)
        self._service_id = None

    @property
    def availability_zone(self) -> str:
        return self.conf.storage_availability_zone

    @property
    def cluster_name(self) -> str | None:
        """Only volume services join clusters."""
        return None

    def rpc_targets(self) -> list[tuple[str, str]]:
        """(topic, server) pairs to listen on; a server on a topic also gets its fanouts."""
        return [(self.TOPIC, self.host)]

    def periodic_option(self, name):
        """Value of the option a `@periodic(spacing_opt=name)` task is spaced by."""
        return self.conf[name]

    def added_to_cluster(self, context):
        """This service has just joined its cluster (it had none before); runs before
        init_host."""

    def init_host(self, context):
        """Prepare the service before its RPC servers start."""

    def init_host_with_rpc(self, context):
        """Work that needs this service's own RPC servers listening (replies to it)."""

    def is_working(self) -> bool:
        """False while the service cannot do its job; it then sends no heartbeats."""
        return True

    # --- the services row and the workers rows of this service's operations ----------

    def _service(self) -> tuple[int | None, str | None]:
        """(id, uuid) of our services row, looked up once."""
        if self._service_id is None:
            rows = db_services.get_all(self.db, host=self.host, binary=self.BINARY)
            self._service_id = (rows[0].id, rows[0].uuid) if rows else None
        return self._service_id or (None, None)

    @property
    def service_id(self) -> int | None:
        """Our services row's id, which workers rows name."""
        return self._service()[0]

    @property
    def service_uuid(self) -> str | None:
        """Our services row's uuid, which the volumes we create name (3.48's service_uuid)."""
        return self._service()[1]

    def hold(self, machine, *, row_id: str, status: str, request: dict | None = None,
             options: tuple = ()):
        """(row, Hold) of a *machine* row still in *status*, its workers row taken by this
        service; (row, None), logged, when the row moved on (nothing to do then). The row is
        read with the loader *options* (Machine.get).

        NOTE(outage): run again while the database cannot be reached, as settles are: a
        take lost to a dead connection would leave the operation to the lost-operation
        sweep. A retry after a COMMIT whose answer was lost takes our own row again (its
        epoch bumped), which is ours all the same.
        :raises: the resource's NotFound.
        """
        row, hold = self.db.retrying(
            lambda: db_workers.begin_for(self.db, machine, row_id=row_id, status=status,
                                         service_id=self.service_id, request=request,
                                         options=options),
            what=f'Taking {machine.name} {row_id}')
        if hold is None:
            LOG.warning('%s %s is %s, not %s; nothing to do', machine.name, row_id,
                        getattr(row, machine.column), status)
        return row, hold

    def flow_timer(self):
        """What the flows this manager runs report their durations to (None outside a
        daemon)."""
        return self.metrics.observe_flow if self.metrics is not None else None

    def set_log_levels(self, context, *, prefix, level):
        """RPC (os-services set-log): set *level* on this process's loggers under *prefix*."""
        log_levels.set_levels(prefix, level)

    def get_log_levels(self, context, *, prefix) -> dict:
        """RPC (os-services get-log): {logger: level} under *prefix* in this process."""
        return log_levels.get_levels(prefix)
