"""cinderlike-volume: one worker process per `enabled_backends` entry, host `host@backend`.

The parent (oslo.service's threading ProcessLauncher, on cotyledon) restarts a worker that
dies and stops them all on SIGTERM.
"""

import sys

from oslo_log import log as logging
from oslo_service import service as oslo_service

from cinderlike import conf as cl_conf
from cinderlike import exception, service
from cinderlike.conf import volume as volume_conf
from cinderlike.volume import manager

LOG = logging.getLogger(__name__)


def backend_services(conf, **service_kwargs):
    """One Service per enabled backend, named `<backend_host or host>@<backend>`.

    :raises NoEnabledBackends: as Cinder since Ocata, the DEFAULT section holds no driver.
    """
    if not conf.enabled_backends:
        raise exception.NoEnabledBackends()
    services = []
    for backend in conf.enabled_backends:
        configuration = volume_conf.register_backend(conf, backend)
        host = f'{configuration.backend_host or conf.host}@{backend}'
        services.append(service.Service(conf, host=host, manager_cls=manager.VolumeManager,
                                        manager_kwargs={'backend': backend},
                                        coordination=True, **service_kwargs))
    return services


def main(argv=None):
    conf = cl_conf.parse(sys.argv[1:] if argv is None else argv)
    logging.setup(conf, 'cinderlike')
    try:
        services = backend_services(conf, own_process=True)
    except exception.NoEnabledBackends as exc:
        LOG.error('%s', exc)
        sys.exit(f'cinderlike-volume: {exc}')
    launcher = oslo_service.ProcessLauncher(conf, restart_method='mutate')
    for svc in services:
        launcher.launch_service(svc, workers=1)
    sys.exit(launcher.wait())
