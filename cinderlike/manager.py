"""Base of the scheduler, volume and backup managers: the RPC endpoints service.py serves.

Public methods of a manager are its RPC methods (same names as in its rpcapi.py); the hooks
service.py calls (init_host, init_host_with_rpc, is_working, rpc_targets) follow Cinder's.
"""

import oslo_messaging as messaging

from cinderlike import log_levels


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

    def set_log_levels(self, context, *, prefix, level):
        """RPC (os-services set-log): set *level* on this process's loggers under *prefix*."""
        log_levels.set_levels(prefix, level)

    def get_log_levels(self, context, *, prefix) -> dict:
        """RPC (os-services get-log): {logger: level} under *prefix* in this process."""
        return log_levels.get_levels(prefix)
