"""The daemon service (oslo.service, threads): services row, RPC servers, heartbeats, periodics.

cinderlike-scheduler, -volume (one per backend) and -backup each run one; cinderlike-all runs
all of them in one process.
"""

import logging as std_logging
import threading
import time

import sqlalchemy as sa
from oslo_log import log as logging
from oslo_service import service as oslo_service
from oslo_service import systemd

from cinderlike import context as context_mod
from cinderlike import coordination, fencing, heap, metrics, periodic, rpc
from cinderlike.db import clusters as clusters_db
from cinderlike.db import engine
from cinderlike.db import services as services_db

LOG = logging.getLogger(__name__)


def apply_log_levels(conf):
    """Root level from `debug` and per-logger levels from `default_log_levels` (SIGHUP)."""
    std_logging.getLogger().setLevel(std_logging.DEBUG if conf.debug else std_logging.INFO)
    for pair in conf.default_log_levels:
        name, _, level = pair.partition('=')
        std_logging.getLogger(name).setLevel(std_logging.getLevelName(level))


class Service(oslo_service.ServiceBase):
    """One manager served over RPC, with its services row kept alive by heartbeats.

    Nothing is connected in __init__: the launcher forks the worker process after building
    this object, so transports, engines and threads are made in start(). A daemon's own
    process passes *own_process*: its threads share few malloc arenas, and once started, what
    it holds is frozen (heap.py).
    """

    def __init__(self, conf, *, host, manager_cls, manager_kwargs=None, coordination=False,
                 db=None, shared_transport=False, clock=time.monotonic, rng=None,
                 own_process=False):
        self.conf = conf
        self.host = host
        self.manager_cls = manager_cls
        self.binary = manager_cls.BINARY
        self._manager_kwargs = manager_kwargs or {}
        self._coordination = coordination
        self._db = db
        # NOTE(transport): cinderlike-all's services share one fake:// transport, so only
        # a daemon that owns its transport closes it on stop.
        self._shared_transport = shared_transport
        self._clock = clock
        self._rng = rng
        self._own_process = own_process
        self.manager = None
        self.coordinator = None
        self.service_id = None
        self._servers = []
        self._threads = []
        self._stop = threading.Event()
        self._stopped = threading.Event()
        self._fence = fencing.HeartbeatFence(down_time=lambda: conf.service_down_time,
                                             clock=clock)
        self.metrics = None

    def start(self):
        """Register the row, init the manager, serve RPC, then heartbeat and run periodics."""
        if self._own_process:
            heap.limit_malloc_arenas()  # before _start() makes its threads
        apply_log_levels(self.conf)
        LOG.info('Starting %s service on %s', self.binary, self.host)
        self._stop.clear()
        self._stopped.clear()
        try:
            self._start()
        except Exception:
            # NOTE(start): undo what started, so wait() returns and the launcher sees the
            # failure (a forked worker exits and its parent starts a new one).
            LOG.exception('Could not start %s service on %s', self.binary, self.host)
            self.stop()
            raise
        LOG.info('Started %s service on %s', self.binary, self.host)
        if self._own_process:
            heap.freeze_startup_objects()
        # NOTE(systemd): Type=notify units (etc/systemd/) count the daemon started once its
        # services row, RPC servers and heartbeat are up; a forked worker sends it, hence
        # NotifyAccess=all there. Without NOTIFY_SOCKET this does nothing.
        systemd.notify()

    def _start(self):
        if self._coordination:
            self.coordinator = coordination.Coordinator(
                self.conf, member_id=f'{self.binary}-{self.host}')
            self.coordinator.start()
        self._db = self._db or engine.Database.from_conf(self.conf)
        self.metrics = metrics.Metrics(db=self._db)
        port = self._metrics_port()
        if port is not None:
            self.metrics.serve(addr=self.conf.metrics.listen, port=port)
            LOG.info('%s %s serves Prometheus metrics on port %d', self.binary, self.host, port)
        self.manager = self.manager_cls(self.conf, host=self.host, db=self._db,
                                        coordinator=self.coordinator, **self._manager_kwargs)
        self.manager.metrics = self.metrics
        if self._register():
            self.manager.added_to_cluster(context_mod.get_admin_context())
        self.manager.init_host(context_mod.get_admin_context())
        self._serve()
        self.manager.init_host_with_rpc(context_mod.get_admin_context())
        self._spawn(self.heartbeat_loop, self._stop.wait)
        self._spawn(self.periodic_runner().loop, self._stop.wait)

    def _metrics_port(self) -> int | None:
        """This worker's `[metrics]` port; none in cinderlike-all, whose services share one
        process (and one registry)."""
        if self._shared_transport:
            return None
        options = self.conf.metrics
        if self.binary == services_db.VOLUME_BINARY:
            backend = self._manager_kwargs['backend']
            if options.volume_port is None:
                return None
            return options.volume_port + list(self.conf.enabled_backends).index(backend)
        return {services_db.SCHEDULER_BINARY: options.scheduler_port,
                services_db.BACKUP_BINARY: options.backup_port}.get(self.binary)

    def _serve(self):
        """Start consuming the manager's RPC targets."""
        for topic, server in self.manager.rpc_targets():
            rpc_server = rpc.get_server(self.conf, topic=topic, server=server,
                                        endpoints=[self.metrics.counting(self.manager)],
                                        version=self.manager.RPC_API_VERSION)
            rpc_server.start()
            self._servers.append(rpc_server)
            LOG.info('%s listening on topic %s server %s', self.binary, topic, server)

    def _register(self) -> bool:
        """Write our services row and our cluster's row; True when we just joined the cluster.

        As Cinder, "joined" means clustered now and not before (or no row before): moving
        from one cluster to another moves no resources (cinderlike-manage cluster rename).
        """
        cluster = self.manager.cluster_name
        before = services_db.get_all(self._db, host=self.host, binary=self.binary)
        row = services_db.register(
            self._db, host=self.host, binary=self.binary, topic=self.manager.TOPIC,
            availability_zone=self.manager.availability_zone, cluster_name=cluster,
            rpc_version=self.manager.RPC_API_VERSION)
        self.service_id = row.id
        if not cluster:
            return False
        if before and before[0].cluster_name not in (None, cluster):
            LOG.info('%s %s moves from cluster %s to %s', self.binary, self.host,
                     before[0].cluster_name, cluster)
        # NOTE(cluster): a new cluster copies the replication fields of its first member.
        if clusters_db.ensure(self._db, name=cluster, binary=self.binary,
                              replication_status=row.replication_status,
                              active_backend_id=row.active_backend_id, frozen=row.frozen):
            LOG.info('Cluster %s of %s created', cluster, self.binary)
        return not before or before[0].cluster_name is None

    def _spawn(self, target, *args):
        thread = threading.Thread(target=target, args=args, daemon=True,
                                  name=f'{self.binary}-{target.__name__}')
        thread.start()
        self._threads.append(thread)

    def periodic_runner(self):
        """The runner of the manager's `@periodic` tasks."""
        return periodic.PeriodicRunner(
            periodic.collect(self.manager), lookup=self.manager.periodic_option,
            interval=self.conf.periodic_interval, fuzzy_delay=self.conf.periodic_fuzzy_delay,
            context_factory=context_mod.get_admin_context, clock=self._clock, rng=self._rng)

    def heartbeat_loop(self, wait):
        """Beat every report_interval, the first after one interval, until wait() says stop."""
        while not wait(self.conf.report_interval):
            self.report_state()

    def report_state(self):
        """One heartbeat: report_count += 1 and updated_at = now, unless the manager is sick."""
        if not self.manager.is_working():
            LOG.error('Manager for service %s %s is reporting problems, not sending '
                      'heartbeat. Service will appear "down".', self.binary, self.host)
            return
        try:
            if not services_db.heartbeat(self._db, self.service_id):
                LOG.warning('Service row of %s %s was removed; registering it again',
                            self.binary, self.host)
                self._register()
        except sa.exc.SQLAlchemyError:
            # NOTE(heartbeat): a database outage must not kill the service; it shows down
            # until the database answers again.
            LOG.exception('Heartbeat of %s %s failed; the database is unreachable',
                          self.binary, self.host)
            if self._fence.failed() and self.manager.cluster_name:
                self._self_fence()
            return
        self.metrics.beat()
        if self._fence.succeeded() and self.manager.cluster_name:
            LOG.warning('Heartbeat of %s %s succeeds again; taking new work again',
                        self.binary, self.host)
            for server in self._servers:
                server.wait()
            self._servers = []
            self._serve()

    def _self_fence(self):
        """Our peers count us down now and take our work over: stop taking new work (what
        is in flight is fenced by its workers rows)."""
        LOG.error('No heartbeat of %s %s for over service_down_time; its cluster peers take '
                  'its work over, so it stops taking new work until a heartbeat succeeds',
                  self.binary, self.host)
        for server in self._servers:
            server.stop()

    def stop(self, graceful=True):
        """Finish in-flight RPCs, stop the loops and leave coordination."""
        LOG.info('Stopping %s service on %s', self.binary, self.host)
        for server in self._servers:
            server.stop()
        for server in self._servers:
            # NOTE(graceful): wait() returns once every dispatched RPC has finished.
            server.wait()
        self._servers = []
        self._stop.set()
        for thread in self._threads:
            thread.join()
        self._threads = []
        if self.coordinator is not None:
            self.coordinator.stop()
        if self.metrics is not None:
            self.metrics.stop()
        if not self._shared_transport:
            rpc.cleanup()
        LOG.info('Stopped %s service on %s', self.binary, self.host)
        self._stopped.set()

    def wait(self):
        self._stopped.wait()

    def reset(self):
        """SIGHUP in cinderlike-all: the launcher has mutated the config; apply log levels.

        NOTE(sighup): in the forked daemons oslo.service's threading backend (cotyledon)
        mutates the config in the parent and replaces the worker, whose start() applies them.
        """
        apply_log_levels(self.conf)
