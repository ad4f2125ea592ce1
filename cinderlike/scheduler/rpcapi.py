"""Client side of the scheduler RPC API, used by the API, volume and backup processes."""

import datetime
import itertools
import threading
import uuid

from cinderlike import rpc
from cinderlike.db.models import utcnow

RPC_API_VERSION = '1.1'


class SchedulerAPI:
    """Casts to the schedulers on topic `cinder-scheduler`.

    API version history:

        1.0 - update_service_capabilities (fanout; carries the report's gathered-at
              timestamp, sequence number and reporter incarnation so schedulers keep the
              newest report per backend)
        1.1 - create_volume, extend_volume (volume id, JSON-safe request_spec)
    """

    RPC_API_VERSION = RPC_API_VERSION

    def __init__(self, conf):
        self.client = rpc.get_client(conf, topic=rpc.SCHEDULER_TOPIC, version=RPC_API_VERSION)

    def update_service_capabilities(self, ctxt, *, service_name, host, capabilities,
                                    cluster_name, timestamp, sequence, incarnation):
        """Fanout: every scheduler learns this service's capabilities."""
        cctxt = self.client.prepare(fanout=True, version='1.0')
        cctxt.cast(ctxt, 'update_service_capabilities', service_name=service_name, host=host,
                   capabilities=capabilities, cluster_name=cluster_name, timestamp=timestamp,
                   sequence=sequence, incarnation=incarnation)

    def create_volume(self, ctxt, *, volume_id, request_spec, filter_properties):
        """Place the new volume `creating` on a backend and hand it to that backend."""
        cctxt = self.client.prepare(version='1.1')
        cctxt.cast(ctxt, 'create_volume', volume_id=volume_id, request_spec=request_spec,
                   filter_properties=filter_properties)

    def extend_volume(self, ctxt, *, volume_id, new_size, reservations, request_spec):
        """Check the volume's own backend still fits *new_size*, then cast the extend."""
        cctxt = self.client.prepare(version='1.1')
        cctxt.cast(ctxt, 'extend_volume', volume_id=volume_id, new_size=new_size,
                   reservations=reservations, request_spec=request_spec)


class CapabilityPublisher:
    """Gathers and sends one service's capability reports in one step, stamped in order.

    The lock makes gather order equal send order, so a report that was gathered later
    always carries the higher sequence number; the incarnation tells a restarted process
    (whose sequence starts again at 1) from the one before it.
    """

    def __init__(self, scheduler_api, *, service_name, host, cluster_name=None,
                 clock=utcnow):
        self._api = scheduler_api
        self._service_name = service_name
        self._host = host
        self._cluster_name = cluster_name
        self._clock = clock
        self._incarnation = uuid.uuid4().hex
        self._sequence = itertools.count(1)
        self._lock = threading.Lock()

    def publish(self, ctxt, gather) -> dict:
        """Call gather() for the capabilities and fan them out; returns what was sent."""
        with self._lock:
            capabilities = gather()
            timestamp: datetime.datetime = self._clock()
            self._api.update_service_capabilities(
                ctxt, service_name=self._service_name, host=self._host,
                capabilities=capabilities, cluster_name=self._cluster_name,
                timestamp=timestamp.isoformat(), sequence=next(self._sequence),
                incarnation=self._incarnation)
            return capabilities
