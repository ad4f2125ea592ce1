"""cinderlike-api: serve the volume API with gunicorn, `osapi_volume_workers` processes.

SIGTERM stops gracefully (in-flight requests finish), as gunicorn's arbiter does.
"""

import os
import sys

from gunicorn.app import base
from oslo_log import log as logging

from cinderlike import conf as cl_conf
from cinderlike.api.app import create_app

LOG = logging.getLogger(__name__)


def _bind(host: str, port: int) -> str:
    return f'[{host}]:{port}' if ':' in host else f'{host}:{port}'


class APIServer(base.BaseApplication):
    """gunicorn application: options from our ConfigOpts, the app built in each worker."""

    def __init__(self, conf):
        self._conf = conf
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

    def load(self):
        # NOTE(fork): built after the fork, so each worker has its own database pool.
        return create_app(self._conf)


def main(argv=None):
    conf = cl_conf.parse(sys.argv[1:] if argv is None else argv)
    logging.setup(conf, 'cinderlike')
    LOG.info('cinderlike-api listening on %s', _bind(conf.osapi_volume_listen,
                                                     conf.osapi_volume_listen_port))
    APIServer(conf).run()
