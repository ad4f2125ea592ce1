"""cinderlike-backup: one backup service in a worker process oslo.service supervises."""

import sys

from oslo_log import log as logging
from oslo_service import service as oslo_service

from cinderlike import conf as cl_conf
from cinderlike import service
from cinderlike.backup import manager


def main(argv=None):
    conf = cl_conf.parse(sys.argv[1:] if argv is None else argv)
    logging.setup(conf, 'cinderlike')
    svc = service.Service(conf, host=conf.host, manager_cls=manager.BackupManager,
                          coordination=True, own_process=True)
    launcher = oslo_service.launch(conf, svc, restart_method='mutate')
    sys.exit(launcher.wait())
