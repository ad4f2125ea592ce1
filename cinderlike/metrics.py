"""Prometheus metrics of the scheduler, volume and backup daemons (prometheus_client): RPC
messages by method and outcome, flow durations, placements and claim failures, heartbeat
age, and, read
from the database at each scrape,
in-flight workers rows and each pool's claimed and free capacity.

Each daemon worker process has its own registry and serves it on its `[metrics]` port.
"""

import functools
import time

import prometheus_client
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from cinderlike.db import pools as db_pools
from cinderlike.db import workers as db_workers


class Metrics:
    """The metrics of one daemon process."""

    def __init__(self, *, db, clock=time.monotonic):
        self.registry = prometheus_client.CollectorRegistry()
        self.rpc_messages = prometheus_client.Counter(
            'cinderlike_rpc_messages', 'RPC messages handled, by method and outcome.',
            ['method', 'outcome'], registry=self.registry)
        self.rpc_seconds = prometheus_client.Histogram(
            'cinderlike_rpc_duration_seconds', 'Time to handle an RPC message, by method.',
            ['method'], registry=self.registry)
        self.placements = prometheus_client.Counter(
            'cinderlike_placements', 'Volumes the scheduler handled, by outcome: placed, gone '
            '(deleted meanwhile) or the failure reason (no_valid_backend).', ['outcome'],
            registry=self.registry)
        self.flow_seconds = prometheus_client.Histogram(
            'cinderlike_flow_duration_seconds', 'Time a flow took, reverts included, by flow '
            'name and outcome (ok, reverted).', ['flow', 'outcome'], registry=self.registry)
        self.claim_failures = prometheus_client.Counter(
            'cinderlike_claim_failures', 'Capacity claims refused on a weighed pool (it filled '
            'up meanwhile; the next candidate is tried).', ['pool'], registry=self.registry)
        self._clock = clock
        self._last_beat = clock()
        prometheus_client.Gauge(
            'cinderlike_heartbeat_age_seconds', 'Seconds since the last successful heartbeat.',
            registry=self.registry).set_function(lambda: self._clock() - self._last_beat)
        self.registry.register(_DatabaseCollector(db))
        self._server = None

    def beat(self) -> None:
        """A heartbeat reached the database."""
        self._last_beat = self._clock()

    def observe_flow(self, flow: str, outcome: str, seconds: float) -> None:
        """A flow run ended (cinderlike/flow.py's timer)."""
        self.flow_seconds.labels(flow, outcome).observe(seconds)

    def counting(self, endpoint):
        """*endpoint* as oslo.messaging sees it, its public methods counted."""
        return _CountingEndpoint(endpoint, self)

    def serve(self, *, addr: str, port: int) -> None:
        """Serve GET /metrics of this registry on addr:port (a daemon thread)."""
        self._server, _thread = prometheus_client.start_http_server(port, addr=addr,
                                                                    registry=self.registry)

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None


class _CountingEndpoint:
    """A manager proxy: each public method call counted by outcome (ok or the exception's
    class name) and timed."""

    def __init__(self, endpoint, metrics: Metrics):
        self._endpoint = endpoint
        self._metrics = metrics
        self._counted = {}
        # NOTE(target): oslo.messaging's Target is callable, so it is copied, not proxied.
        self.target = endpoint.target

    def __getattr__(self, name):
        attribute = getattr(self._endpoint, name)
        if name.startswith('_') or not callable(attribute):
            return attribute
        # NOTE(perf): oslo.messaging's dispatcher looks a method up several times per
        # message; the wrapper and its metric children are made once per method name. The
        # method itself is looked up at each call, as the endpoint holds it then.
        counted = self._counted.get(name)
        if counted is None:
            counted = self._counted.setdefault(name, self._wrap(name, attribute))
        return counted

    def _wrap(self, name: str, attribute):
        endpoint, messages = self._endpoint, self._metrics.rpc_messages
        seconds, ok = self._metrics.rpc_seconds.labels(name), messages.labels(name, 'ok')

        @functools.wraps(attribute)
        def counted(*args, **kwargs):
            with seconds.time():
                try:
                    result = getattr(endpoint, name)(*args, **kwargs)
                except Exception as error:
                    messages.labels(name, type(error).__name__).inc()
                    raise
            ok.inc()
            return result
        return counted


class _DatabaseCollector(Collector):
    """What the database holds at scrape time: in-flight workers rows and pool capacity."""

    def __init__(self, db):
        self._db = db

    def collect(self):
        workers = GaugeMetricFamily('cinderlike_workers_in_flight',
                                    'In-flight cleanable operations (workers rows), by status.',
                                    labels=['resource_type', 'status'])
        counts = {}
        for row in db_workers.get_all(self._db):
            key = (row.resource_type, row.status)
            counts[key] = counts.get(key, 0) + 1
        for (resource_type, status), count in sorted(counts.items()):
            workers.add_metric([resource_type, status], count)
        yield workers
        claimed = GaugeMetricFamily('cinderlike_pool_claimed_gb',
                                    'Capacity claimed by volumes placed on the pool.',
                                    labels=['pool'])
        free = GaugeMetricFamily('cinderlike_pool_free_gb',
                                 'Free capacity the pool last reported.', labels=['pool'])
        for pool in db_pools.get_all(self._db):
            claimed.add_metric([pool.name], pool.allocated_capacity_gb)
            if pool.free_capacity_gb is not None:
                free.add_metric([pool.name], pool.free_capacity_gb)
        yield claimed
        yield free
