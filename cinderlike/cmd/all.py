"""cinderlike-all: API, scheduler, volume and backup in one process.

The embedded default behind `make run`: SQLite under `state_path`, oslo.messaging's in-process
fake:// transport shared by every service, noauth on 127.0.0.1:8776, and one `file` backend
holding its volumes under `state_path`, unless configured. Its volumes are exported through a
private tgtd (`target_helper = tgtadm`, portal 127.0.0.1:3260) when one can be started, else
through the local connection (`target_helper = fake`, os-brick's local connector).
"""

import os
import shutil
import signal
import socket
import socketserver
import subprocess
import sys
import threading
from wsgiref import simple_server

from oslo_config import cfg
from oslo_log import log as logging
from oslo_service import service as oslo_service

from cinderlike import conf as cl_conf
from cinderlike import rpc, service
from cinderlike.api.app import create_app
from cinderlike.backup import manager as backup_manager
from cinderlike.cmd import tgtd as tgtd_cmd
from cinderlike.cmd import volume as volume_cmd
from cinderlike.conf import api as api_conf
from cinderlike.conf import default as default_conf
from cinderlike.conf import volume as volume_conf
from cinderlike.db import engine, migration
from cinderlike.drivers.volume import file
from cinderlike.scheduler import manager as scheduler_manager

LOG = logging.getLogger(__name__)

EMBEDDED_BACKEND = 'file'
# NOTE(portal): a fixed portal, because an attachment's connection info (provider_location)
# names it and must still hold after a restart of cinderlike-all.
PORTAL_PORT = 3260


def _parse(argv):
    conf = cfg.ConfigOpts()
    # NOTE(state_path): a command-line option here (`make run --state_path DIR`); the other
    # daemons read it from their config file only.
    conf.register_cli_opt(next(o for o in default_conf.OPTS if o.name == 'state_path'))
    cl_conf.register_all(conf)
    logging.register_options(conf)
    conf.set_default('state_path', os.path.abspath('state'))
    conf.set_default('transport_url', 'fake://')
    conf.set_default('auth_strategy', 'noauth')
    # NOTE(project): noauth tokens name any project (`admin:admin`), not Keystone's hex ids.
    conf.set_default('project_id_regex', api_conf.ANY_PROJECT_ID_REGEX)
    conf.set_default('osapi_volume_listen', '127.0.0.1')
    conf.set_default('enabled_backends', [EMBEDDED_BACKEND])
    # NOTE(backup): backups work out of the box: posix under $state_path/backup.
    conf.set_default('backup_driver', 'posix')
    conf(argv, project='cinderlike')
    if conf.enabled_backends == [EMBEDDED_BACKEND]:
        volume_conf.register_backend(conf, EMBEDDED_BACKEND, file.DRIVER_OPTS)
        # NOTE(qemu-img): the file driver needs it; without it the backend keeps no data.
        driver = 'file' if shutil.which('qemu-img') else 'fake'
        conf.set_default('volume_driver', driver, group=EMBEDDED_BACKEND)
        conf.set_default('volume_backend_name', EMBEDDED_BACKEND, group=EMBEDDED_BACKEND)
        # NOTE(backup): the file driver's snapshot is a full copy, as its clone is; a
        # temporary snapshot spares the second volume row and its capacity claim.
        conf.set_default('backup_use_temp_snapshot', True, group=EMBEDDED_BACKEND)
    return conf


def _embedded_file_backend(conf) -> bool:
    """The embedded backend with the file driver, its export left to cinderlike-all."""
    if conf.enabled_backends != [EMBEDDED_BACKEND]:
        return False
    backend = conf[EMBEDDED_BACKEND]
    chosen = conf.get_location('target_helper', EMBEDDED_BACKEND)
    return backend.volume_driver == 'file' and not chosen.location.is_user_controlled


def _port_taken(port: int) -> bool:
    try:
        socket.create_connection((tgtd_cmd.LISTEN_HOST, port), timeout=1).close()
    except OSError:
        return False
    return True


def _start_tgtd(conf):
    """A private tgtd for the embedded backend, or (None, why not)."""
    if shutil.which('tgtd') is None or shutil.which('tgt-admin') is None:
        return None, 'tgtd or tgt-admin is not installed (Debian: apt-get install tgt)'
    if _port_taken(PORTAL_PORT):
        return None, f'port {PORTAL_PORT} of {tgtd_cmd.LISTEN_HOST} is in use'
    daemon = tgtd_cmd.Tgtd(os.path.join(conf.state_path, 'tgtd.log'), portal_port=PORTAL_PORT)
    try:
        daemon.start()
    except (RuntimeError, OSError) as exc:
        return None, str(exc)
    return daemon, None


def _choose_export(conf):
    """Export the embedded backend through a private tgtd, else the local connection.

    :returns: the tgtd started (stopped by the caller), and a line saying what was chosen.
    """
    if not _embedded_file_backend(conf):
        if conf.enabled_backends == [EMBEDDED_BACKEND] and shutil.which('qemu-img') is None:
            return None, (f'backend {EMBEDDED_BACKEND}: the in-memory fake driver, volumes '
                          'hold no data (qemu-img is not installed; Debian: apt-get install '
                          'qemu-utils)')
        return None, f'backends {", ".join(conf.enabled_backends)} as configured'
    backend = conf[EMBEDDED_BACKEND]
    where = backend.file_volume_directory
    daemon, why_not = _start_tgtd(conf)
    if daemon is None:
        return None, (f'backend {EMBEDDED_BACKEND}: volumes in {where}, attached through the '
                      f'local connection (target_helper = fake): no tgtd, {why_not}')
    for name, value in (('target_helper', 'tgtadm'),
                        ('target_ip_address', tgtd_cmd.LISTEN_HOST),
                        ('target_port', daemon.portal_port),
                        ('tgt_control_port', daemon.control_port)):
        conf.set_default(name, value, group=EMBEDDED_BACKEND)
    return daemon, (f'backend {EMBEDDED_BACKEND}: volumes in {where}, exported over iSCSI '
                    f'by a private tgtd on {daemon.portal} (target_helper = tgtadm, CHAP)')


def _stop_tgtd(daemon) -> None:
    try:
        daemon.stop()
    except (subprocess.SubprocessError, OSError) as exc:
        LOG.warning('tgtd did not stop cleanly (%s); killing it', exc)
    finally:
        daemon.kill()


class _ThreadingWSGIServer(socketserver.ThreadingMixIn, simple_server.WSGIServer):
    daemon_threads = True


class _RequestHandler(simple_server.WSGIRequestHandler):
    def log_message(self, format, *args):
        LOG.info('%s %s', self.address_string(), format % args)


class APIService(oslo_service.ServiceBase):
    """The falcon app on a threaded wsgiref server (one process needs no gunicorn)."""

    def __init__(self, conf, db):
        self.conf = conf
        self._db = db
        self._server = None
        self._thread = None

    def start(self):
        conf = self.conf
        self._server = simple_server.make_server(
            conf.osapi_volume_listen, conf.osapi_volume_listen_port,
            create_app(conf, db=self._db), server_class=_ThreadingWSGIServer,
            handler_class=_RequestHandler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True,
                                        name='cinderlike-api')
        self._thread.start()
        _print_usage(conf, self._server.server_port)

    def stop(self, graceful=True):
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def wait(self):
        if self._thread is not None:
            self._thread.join()

    def reset(self):
        """Log levels are re-applied by the other services' reset()."""


def _print_usage(conf, port):
    url = f'http://{conf.osapi_volume_listen}:{port}'
    print(f'cinderlike-all: volume API on {url} (auth_strategy={conf.auth_strategy}), '
          f'state in {conf.state_path}\n'
          f'  curl -s {url}/\n'
          f"  curl -s -H 'X-Auth-Token: admin:admin' {url}/v3/\n"
          f"  curl -s -H 'X-Auth-Token: admin:admin' {url}/v3/admin/os-services\n"
          f"  curl -s -H 'X-Auth-Token: admin:admin' {url}/v3/admin/os-availability-zone",
          flush=True)


def _services(conf, db):
    common = dict(db=db, shared_transport=True)
    services = [service.Service(conf, host=conf.host,
                                manager_cls=scheduler_manager.SchedulerManager, **common)]
    services += volume_cmd.backend_services(conf, **common)
    services.append(service.Service(conf, host=conf.host,
                                    manager_cls=backup_manager.BackupManager,
                                    coordination=True, **common))
    return services + [APIService(conf, db)]


def _handle_signals(launcher):
    def stop(signo, frame):
        LOG.info('Caught signal %s, stopping', signo)
        threading.Thread(target=launcher.stop, name='stopper').start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    # SIGHUP: mutate the configuration, then each service's reset() re-applies log levels.
    signal.signal(signal.SIGHUP, lambda signo, frame: launcher.restart())


def main(argv=None):
    conf = _parse(sys.argv[1:] if argv is None else argv)
    logging.setup(conf, 'cinderlike')
    os.makedirs(conf.state_path, exist_ok=True)
    migration.upgrade(conf.database.connection)
    db = engine.Database.from_conf(conf)
    tgtd, chosen = _choose_export(conf)
    print(f'cinderlike-all: {chosen}', flush=True)
    try:
        launcher = oslo_service.Launcher(conf, restart_method='mutate')
        _handle_signals(launcher)
        for svc in _services(conf, db):
            launcher.launch_service(svc)
        launcher.wait()
    finally:
        if tgtd is not None:
            _stop_tgtd(tgtd)
    rpc.cleanup()
    db.dispose()
    LOG.info('cinderlike-all stopped')
