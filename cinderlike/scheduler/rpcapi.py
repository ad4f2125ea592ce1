"""Client side of the scheduler RPC API, used by the API, volume and backup processes."""

import datetime
import itertools
import threading
import time

import oslo_messaging
from oslo_log import log as logging

from cinderlike import rpc
from cinderlike.db.models import utcnow

LOG = logging.getLogger(__name__)

RPC_API_VERSION = '1.9'

# A report's sequence number is (publisher start second << 31) + n: see CapabilityPublisher.
SEQUENCE_SHIFT = 31


class SchedulerAPI:
    """Casts to the schedulers on topic `cinder-scheduler`.

    API version history:

        1.0 - update_service_capabilities (fanout; carries the report's gathered-at
              timestamp and sequence number so schedulers keep the newest report per
              backend)
        1.1 - create_volume, extend_volume (volume id, JSON-safe request_spec)
        1.2 - get_pools (call; allocated/provisioned capacity from the database)
        1.3 - work_cleanup (call; POST /workers/cleanup), do_cleanup
        1.4 - create_snapshot (check the volume's backend, then hand the snapshot to it)
        1.5 - create_backup (pick a live backup service, save backups.host, cast to it)
        1.6 - set_log_levels (cast), get_log_levels (call) to one scheduler
        1.7 - retype (find a backend for the new type), migrate_volume (check the
              destination, place the destination row with its claim)
        1.8 - manage_existing, manage_existing_snapshot (check the named backend passes
              the filters, then cast to it)
        1.9 - create_group (place every volume type of a `creating` group on one backend
              and hand the group to it)
    """

    RPC_API_VERSION = RPC_API_VERSION

    def __init__(self, conf, *, retry=None):
        self.client = rpc.get_client(conf, topic=rpc.SCHEDULER_TOPIC, version=RPC_API_VERSION,
                                     retry=retry)

    def update_service_capabilities(self, ctxt, *, service_name, host, capabilities,
                                    cluster_name, timestamp, sequence):
        """Fanout: every scheduler learns this service's capabilities."""
        cctxt = self.client.prepare(fanout=True, version='1.0')
        cctxt.cast(ctxt, 'update_service_capabilities', service_name=service_name, host=host,
                   capabilities=capabilities, cluster_name=cluster_name, timestamp=timestamp,
                   sequence=sequence)

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

    def retype(self, ctxt, *, volume_id, request_spec, filter_properties=None):
        """Find a backend for a `retyping` volume's new type and hand the retype on."""
        self.client.prepare(version='1.7').cast(
            ctxt, 'retype', volume_id=volume_id, request_spec=request_spec,
            filter_properties=filter_properties or {})

    def migrate_volume(self, ctxt, *, volume_id, backend, force_host_copy, request_spec):
        """Check *backend* (host or cluster) takes a `starting` volume, then migrate it."""
        self.client.prepare(version='1.7').cast(
            ctxt, 'migrate_volume', volume_id=volume_id, backend=backend,
            force_host_copy=force_host_copy, request_spec=request_spec)

    def create_snapshot(self, ctxt, *, snapshot_id, volume_id, request_spec):
        """Check the volume's backend is up and passes the filters, then cast the create."""
        cctxt = self.client.prepare(version='1.4')
        cctxt.cast(ctxt, 'create_snapshot', snapshot_id=snapshot_id, volume_id=volume_id,
                   request_spec=request_spec)

    def create_group(self, ctxt, *, group_id, request_spec):
        """Pick the one backend that serves every volume type of a `creating` group."""
        cctxt = self.client.prepare(version='1.9')
        cctxt.cast(ctxt, 'create_group', group_id=group_id, request_spec=request_spec)

    def create_backup(self, ctxt, *, backup_id):
        """Pick the backup service of a `creating` backup and hand the backup to it."""
        cctxt = self.client.prepare(version='1.5')
        cctxt.cast(ctxt, 'create_backup', backup_id=backup_id)

    def work_cleanup(self, ctxt, *, cleanup_request: dict) -> tuple[list, list]:
        """Send do_cleanup to the services the request selects (a call); returns the
        (cleaning, unavailable) services as dicts of id, host, binary, cluster_name."""
        cctxt = self.client.prepare(version='1.3')
        return cctxt.call(ctxt, 'work_cleanup', cleanup_request=cleanup_request)

    def do_cleanup(self, ctxt, *, cleanup_request: dict):
        """Any scheduler settles what a stopped scheduler left (volumes never placed)."""
        cctxt = self.client.prepare(version='1.3')
        cctxt.cast(ctxt, 'do_cleanup', cleanup_request=cleanup_request)

    def get_pools(self, ctxt, *, filters=None):
        """[{'name': 'backend#pool', 'capabilities': {...}}] of the live pools (a call)."""
        cctxt = self.client.prepare(version='1.2')
        return cctxt.call(ctxt, 'get_pools', filters=filters)

    def manage_existing(self, ctxt, *, volume_id, ref, request_spec):
        """Check the `managing` volume's backend passes the filters, then hand it over."""
        self.client.prepare(version='1.8').cast(ctxt, 'manage_existing', volume_id=volume_id,
                                                ref=ref, request_spec=request_spec)

    def manage_existing_snapshot(self, ctxt, *, snapshot_id, volume_id, ref, request_spec):
        """Check the volume's backend passes the filters, then hand the snapshot over."""
        self.client.prepare(version='1.8').cast(
            ctxt, 'manage_existing_snapshot', snapshot_id=snapshot_id, volume_id=volume_id,
            ref=ref, request_spec=request_spec)

    def set_log_levels(self, ctxt, *, host, prefix, level):
        """Set *level* on the loggers under *prefix* of the scheduler on *host* (a cast)."""
        self.client.prepare(server=host, version='1.6').cast(
            ctxt, 'set_log_levels', prefix=prefix, level=level)

    def get_log_levels(self, ctxt, *, host, prefix) -> dict:
        """{logger: level} under *prefix* in the scheduler on *host* (a call)."""
        return self.client.prepare(server=host, version='1.6').call(
            ctxt, 'get_log_levels', prefix=prefix)


class CapabilityPublisher:
    """Gathers and sends one service's capability reports in one step, stamped in order.

    The lock makes gather order equal send order. The sequence number starts at
    (start second << SEQUENCE_SHIFT) + 1 and counts up: within a process it orders reports
    whatever the clock does, and a restarted process (a later start second) continues above
    the one before it, so one comparison (db/pools.py `supersedes`) serves both cases.
    """

    def __init__(self, scheduler_api, *, service_name, host, cluster_name=None,
                 clock=utcnow, start_time=time.time):
        self._api = scheduler_api
        self._service_name = service_name
        self._host = host
        self._cluster_name = cluster_name
        self._clock = clock
        self._sequence = itertools.count((int(start_time()) << SEQUENCE_SHIFT) + 1)
        self._lock = threading.Lock()

    def publish(self, ctxt, gather, record=None) -> dict:
        """Call gather() for the capabilities and fan them out; returns what was sent.

        *record(capabilities, sequence=, gathered_at=)* runs between the two, under the same
        sequence number (a volume service writes its pools' limits to the database there);
        when it raises, nothing is sent.
        """
        with self._lock:
            capabilities = gather()
            timestamp: datetime.datetime = self._clock()
            sequence = next(self._sequence)
            if record is not None:
                record(capabilities, sequence=sequence, gathered_at=timestamp)
            try:
                self._api.update_service_capabilities(
                    ctxt, service_name=self._service_name, host=self._host,
                    capabilities=capabilities, cluster_name=self._cluster_name,
                    timestamp=timestamp.isoformat(), sequence=sequence)
            except oslo_messaging.MessageDeliveryFailure as error:
                # NOTE(startup): RabbitMQ refuses a fanout until some scheduler declared
                # its exchange; a service started first loses this report (the limits
                # are in the database already) and the next one goes through.
                LOG.warning('Capability report %s of %s not delivered: %s', sequence,
                            self._host, error)
            return capabilities
