"""The scheduler's view of the volume backends (cinderlike-scheduler): reports plus the database.

Capability reports arrive by fanout and the newest per service is kept; which backends may
take volumes comes from the services rows (up and enabled), and what each pool has promised
comes from the pools rows, so every scheduler sees the same allocated capacity.
"""

import dataclasses
import datetime
import threading
import time

from oslo_log import log as logging
from oslo_utils import strutils

from cinderlike.db import pools as db_pools
from cinderlike.db import services as db_services
from cinderlike.db.models import utcnow
from cinderlike.scheduler import backend_state, pool_index

LOG = logging.getLogger(__name__)

# NOTE(cache): services rows change when a service starts, stops or is disabled; re-reading
# them once a second keeps placements cheap and still sees those changes promptly.
SERVICES_TTL = 1.0
# The claims read for filtering may be this old; a claim is checked by the database anyway,
# and the scheduler reads them afresh before it declares that no backend is valid.
CLAIMS_TTL = 1.0


@dataclasses.dataclass(frozen=True)
class CapabilityReport:
    """One service's report as received: what it said, when it gathered it, in what order."""

    service_name: str
    host: str
    cluster_name: str | None
    capabilities: dict
    timestamp: datetime.datetime
    sequence: int

    def newer_than(self, other: 'CapabilityReport | None') -> bool:
        """db/pools.py `supersedes`: the same rule the pools rows apply."""
        if other is None:
            return True
        return db_pools.supersedes(seq=self.sequence, reporter=self.host,
                                   gathered_at=self.timestamp, held_seq=other.sequence,
                                   held_reporter=other.host, held_at=other.timestamp)


# What the pools view reads of a services row (is_up reads the two times).
_SERVICE_COLUMNS = ('host', 'cluster_name', 'availability_zone', 'frozen', 'updated_at',
                    'created_at')


class _Cached:
    """A value read again by *load()* once it is older than *ttl* seconds."""

    def __init__(self, load, ttl, monotonic):
        self._load, self._ttl, self._monotonic = load, ttl, monotonic
        self._value, self._read_at = None, None
        self.generation = 0     # how many times it was read
        self._lock = threading.Lock()

    def read(self, fresh=False) -> tuple:
        """(value, the generation it is), read again first when stale or *fresh*."""
        with self._lock:
            now = self._monotonic()
            if fresh or self._read_at is None or now - self._read_at >= self._ttl:
                self._value, self._read_at = self._load(), now
                self.generation += 1
            return self._value, self.generation

    def get(self, fresh=False):
        return self.read(fresh)[0]


class HostManager:
    """Backends and pools a scheduler may place on, and the wait for their first reports."""

    def __init__(self, conf, db, *, monotonic=time.monotonic):
        self.conf = conf
        self.db = db
        self._monotonic = monotonic
        self._started = monotonic()
        self._lock = threading.Lock()
        self._reported = threading.Condition(self._lock)
        self._reports: dict[tuple[str, str], CapabilityReport] = {}
        self._backends: dict[str, backend_state.BackendState] = {}
        self._version = 0       # bumped by every report kept
        # ((claims, services, version) generations, pools, claims) of the last pools()
        self._view = None
        self._local = threading.local()  # .view: the view pools() last gave this thread
        self._services = _Cached(self._read_services, SERVICES_TTL, monotonic)
        self._claims = _Cached(lambda: db_pools.claims(db), CLAIMS_TTL, monotonic)

    def update(self, report: CapabilityReport) -> bool:
        """Keep *report* if it is newer than the one held for its service; True when kept."""
        backend = None
        if report.service_name == 'volume':
            backend = backend_state.BackendState.from_report(
                report.host, report.capabilities, cluster_name=report.cluster_name,
                updated_at=report.timestamp, seq=report.sequence)
        key = (report.service_name, report.host)
        with self._lock:
            if not report.newer_than(self._reports.get(key)):
                return False
            self._reports[key] = report
            if backend is not None:
                self._backends[report.host] = backend
                self._version += 1
            self._reported.notify_all()
        return True

    def get(self, service_name: str, host: str) -> CapabilityReport | None:
        with self._lock:
            return self._reports.get((service_name, host))

    def _read_services(self):
        down_time, now = self.conf.service_down_time, utcnow()
        # NOTE(cluster): disabled=False asks the cluster row of a clustered service.
        # NOTE(frozen): as Cinder, a frozen backend takes no new volumes (freeze marks every
        # member of its cluster frozen too).
        # NOTE(perf): plain rows of the columns used here; ORM instances of every service,
        # read each second, cost more than a placement among thousands of pools.
        rows = db_services.get_all(self.db, binary=db_services.VOLUME_BINARY, disabled=False,
                                   columns=_SERVICE_COLUMNS)
        return [svc for svc in rows
                if not svc.frozen and db_services.is_up(svc, down_time=down_time, now=now)]

    def _unreported(self, services) -> list[str]:
        return [svc.host for svc in services if svc.host not in self._backends]

    def wait_for_reports(self) -> None:
        """Block until every up volume service has reported, at most until
        `scheduler_driver_init_wait_time` after start (Cinder's _wait_for_scheduler)."""
        deadline = self._started + self.conf.scheduler_driver_init_wait_time
        services = self._services.get()
        with self._lock:
            while (missing := self._unreported(services)) and self._monotonic() < deadline:
                LOG.debug('Waiting for capability reports from %s', ', '.join(missing))
                self._reported.wait(min(1.0, deadline - self._monotonic()))
                # NOTE(wait): the services cache may be refreshed without this lock.
                self._lock.release()
                try:
                    services = self._services.get()
                finally:
                    self._lock.acquire()

    def backends(self) -> list[backend_state.BackendState]:
        """Backends of up, enabled volume services that reported; one per cluster (the
        member with the newest report), with the service row's availability zone."""
        chosen: dict[str, tuple] = {}
        services = self._services.get()
        with self._lock:
            for svc in services:
                backend = self._backends.get(svc.host)
                if backend is None:
                    continue
                key = svc.cluster_name or svc.host
                held = chosen.get(key)
                if held is None or backend.updated_at > held[0].updated_at:
                    chosen[key] = (backend, svc.availability_zone)
        for backend, zone in chosen.values():
            for pool in backend.pools.values():
                pool.availability_zone = zone
        return [backend for backend, _ in chosen.values()]

    def pools(self, *, fresh_claims: bool = False,
              fresh_services: bool = False) -> list[backend_state.PoolState]:
        """Every pool of backends(), with allocated/provisioned capacity from the database
        (and with *fresh_services* the services rows read now, not up to SERVICES_TTL ago).

        A pool without a row (its backend's report never reached the database) is left out:
        nothing could be claimed on it.
        """
        claims, claims_read = self._claims.read(fresh=fresh_claims)
        _, services_read = self._services.read(fresh=fresh_services)
        with self._lock:
            view, claims, claims_read = self._current(claims, claims_read, services_read)
        if view is None:
            # NOTE(perf): rebuilt only when the claims or services are read again or a report
            # arrives; between those, successful claims update the pools in place
            # (consumed()).
            backends = self.backends()
            with self._lock:
                view, claims, claims_read = self._current(claims, claims_read, services_read)
                if view is None:
                    view = self._build(backends, claims, claims_read, services_read)
        self._local.view = view
        return view

    def _current(self, claims, claims_read, services_read) -> tuple:
        """(the held view when it is the one these reads make, else None; the claims to
        build from and their generation), under the lock.

        NOTE(race): claims older than the held view's are never built from again: the
        held view's are taken instead.
        """
        if self._view is None:
            return None, claims, claims_read
        held_key, held_view, held_claims = self._view
        if held_key[0] > claims_read:
            claims, claims_read = held_claims, held_key[0]
        current = held_key == (claims_read, services_read, self._version)
        return held_view if current else None, claims, claims_read

    def _build(self, backends, claims, claims_read, services_read):
        """A new view from *claims* (under the lock): the pools' claims set from them.

        NOTE(race): the pools are shared by every view, so their claims are set under the
        lock that consumed() takes to count a claim in them.
        """
        result = pool_index.PoolView()
        for backend in backends:
            for pool in backend.pools.values():
                claimed = claims.get(pool.backend_id)
                if claimed is None:
                    continue
                pool.set_claims(*claimed)
                result.append(pool)
        self._view = ((claims_read, services_read, self._version), result, claims)
        return result

    def consumed(self, pool: backend_state.PoolState, size_gb: float) -> None:
        """Count a successful claim, made after this thread's last pools(), in the view
        until the claims are read again.

        NOTE(race): only while the view this thread placed from is still the held one: its
        claims were read before this claim was made. A view built since then read them
        again, maybe after the claim committed; counting it there too showed the claim
        twice (get_pools answered more than the pool holds). Left out, it is missing for at
        most CLAIMS_TTL, and the database's claim is checked anyway.
        """
        with self._lock:
            view = getattr(self._local, 'view', None)
            if self._view is None or self._view[1] is not view:
                return
            before = pool_index.raw_weights(pool)
            pool.consume(size_gb)
            index = view.built_index
            if index is not None:
                index.moved(pool, before)
            claims = self._view[2]
            if pool.backend_id in claims:
                claims[pool.backend_id] = (pool.allocated_capacity_gb,
                                           pool.provisioned_capacity_gb)


def _matches(capabilities: dict, key: str, wanted) -> bool:
    """Cinder's get_pools filter: booleans by bool_from_string, anything else as strings."""
    value = capabilities.get(key)
    if isinstance(value, bool):
        return value == strutils.bool_from_string(wanted)
    return str(value) == str(wanted)


def describe_pools(pools, filters: dict) -> list[dict]:
    """get_pools' answer: [{'name': 'backend#pool', 'capabilities': {...}}] filtered by
    `name` (exact) and by any capability key; allocated/provisioned are the pools' claims."""
    result = []
    for pool in pools:
        caps = dict(pool.capabilities, allocated_capacity_gb=pool.allocated_capacity_gb,
                    provisioned_capacity_gb=pool.provisioned_capacity_gb,
                    timestamp=pool.updated_at.isoformat() if pool.updated_at else None)
        if 'name' in filters and filters['name'] != pool.backend_id:
            continue
        if all(_matches(caps, key, wanted) for key, wanted in filters.items() if key != 'name'):
            result.append({'name': pool.backend_id, 'capabilities': caps})
    return sorted(result, key=lambda entry: entry['name'])
