"""cinderlike-api: serve the volume API with gunicorn, `osapi_volume_workers` processes.

SIGTERM stops gracefully (in-flight requests finish), as gunicorn's arbiter does.
"""

import os
import sys

from gunicorn.app import base
from oslo_log import log as logging

from cinderlike import conf as cl_conf
from cinderlike import heap
from cinderlike.api import metrics as api_metrics
from cinderlike.api.app import create_app
from cinderlike.db import engine as db_engine

LOG = logging.getLogger(__name__)


def _bind(host: str, port: int) -> str:
    return f'[{host}]:{port}' if ':' in host else f'{host}:{port}'


class APIServer(base.BaseApplication):
    """gunicorn application: options from our ConfigOpts, the app built in each worker."""

    def __init__(self, conf, shared: api_metrics.SharedDirectory | None = None):
        self._conf = conf
        self._shared = shared
        super().__init__()

    def load_config(self):
        conf = self._conf
        self.cfg.set('bind', [_bind(conf.osapi_volume_listen, conf.osapi_volume_listen_port)])
        self.cfg.set('workers', conf.osapi_volume_workers or os.cpu_count() or 1)
        self.cfg.set('worker_class', 'gthread')
        self.cfg.set('threads', conf.wsgi_default_pool_size)
        # NOTE(keepalive): gunicorn closes an idle kept-alive connection after 2 s by default;
        # a client reusing it at that moment gets "connection closed without response".
        self.cfg.set('keepalive', conf.client_socket_timeout if conf.wsgi_keep_alive else 0)
        self.cfg.set('proc_name', 'cinderlike-api')
        # NOTE(control_socket): gunicorn >= 25.1 opens one control socket per user by
        # default; two API processes on a host would fight over it.
        if 'control_socket_disable' in self.cfg.settings:
            self.cfg.set('control_socket_disable', True)
        shared = self._shared
        if shared is not None:
            metrics_conf = conf.metrics
            self.cfg.set('when_ready', lambda server: shared.serve(
                addr=metrics_conf.listen, port=metrics_conf.api_port))
            self.cfg.set('child_exit', lambda server, worker: shared.worker_exited(worker.pid))
            self.cfg.set('on_exit', lambda server: shared.remove())

    def load(self):
        # NOTE(fork): built after the fork, so each worker has its own database pool; the
        # worker's request threads start after this.
        heap.limit_malloc_arenas()
        metrics = api_metrics.RequestMetrics() if self._shared is not None else None
        app = create_app(self._conf, metrics=metrics)
        heap.freeze_startup_objects()
        return app


def main(argv=None):
    conf = cl_conf.parse(sys.argv[1:] if argv is None else argv)
    logging.setup(conf, 'cinderlike')
    LOG.info('cinderlike-api listening on %s', _bind(conf.osapi_volume_listen,
                                                     conf.osapi_volume_listen_port))
    # NOTE(multiprocess): the directory is named in the environment before any worker (or
    # prometheus_client) exists; a fresh one per run, so no old run's counts are summed.
    shared = (api_metrics.SharedDirectory(conf.state_path)
              if conf.metrics.api_port is not None else None)
    db_engine.import_driver(conf.database.connection)
    APIServer(conf, shared).run()
