"""Scheduler manager (cinderlike-scheduler): RPC endpoint fed by services' capability reports."""

import dataclasses
import datetime
import threading

from oslo_log import log as logging

from cinderlike import manager, rpc
from cinderlike.backup import rpcapi as backup_rpcapi
from cinderlike.scheduler import rpcapi
from cinderlike.volume import rpcapi as volume_rpcapi

LOG = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class CapabilityReport:
    """One service's report as received: what it said, when it gathered it, in what order."""

    service_name: str
    host: str
    cluster_name: str | None
    capabilities: dict
    timestamp: datetime.datetime
    sequence: int
    incarnation: str

    def newer_than(self, other: 'CapabilityReport | None') -> bool:
        """Within one reporting process the sequence decides (immune to clock steps);
        a restarted process starts its sequence again, so across processes time decides."""
        if other is None:
            return True
        if self.incarnation == other.incarnation:
            return self.sequence > other.sequence
        return self.timestamp > other.timestamp


class CapabilityReports:
    """The newest report per (service_name, host); older or replayed reports are dropped."""

    def __init__(self):
        self._lock = threading.Lock()
        self._reports: dict[tuple[str, str], CapabilityReport] = {}

    def update(self, report: CapabilityReport) -> bool:
        """Keep *report* if it is newer than the one held; True when kept."""
        key = (report.service_name, report.host)
        with self._lock:
            if not report.newer_than(self._reports.get(key)):
                return False
            self._reports[key] = report
            return True

    def get(self, service_name: str, host: str) -> CapabilityReport | None:
        with self._lock:
            return self._reports.get((service_name, host))


class SchedulerManager(manager.Manager):
    """Endpoint of topic `cinder-scheduler` (direct and fanout)."""

    BINARY = 'cinder-scheduler'
    TOPIC = rpc.SCHEDULER_TOPIC
    RPC_API_VERSION = rpcapi.RPC_API_VERSION

    def __init__(self, conf, *, host, db, coordinator=None):
        super().__init__(conf, host=host, db=db, coordinator=coordinator)
        self.capabilities = CapabilityReports()

    def init_host_with_rpc(self, context):
        """A scheduler that starts after the services asks them to report now (as Cinder's)."""
        volume_rpcapi.VolumeAPI(self.conf).publish_service_capabilities(context)
        backup_rpcapi.BackupAPI(self.conf).publish_service_capabilities(context)

    def update_service_capabilities(self, context, *, service_name, host, capabilities,
                                    cluster_name, timestamp, sequence, incarnation):
        """Fanout from a volume or backup service: keep its report unless we hold a newer one."""
        report = CapabilityReport(
            service_name=service_name, host=host, cluster_name=cluster_name,
            capabilities=capabilities, timestamp=datetime.datetime.fromisoformat(timestamp),
            sequence=sequence, incarnation=incarnation)
        if self.capabilities.update(report):
            LOG.debug('Received %s capabilities from %s (sequence %s)',
                      service_name, host, sequence)
        else:
            LOG.debug('Ignoring %s capabilities from %s: sequence %s is older than held',
                      service_name, host, sequence)
