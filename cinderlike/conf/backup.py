"""[DEFAULT] options of cinderlike-backup."""

from oslo_config import cfg

OPTS = [
    cfg.IntOpt('backup_driver_stats_polling_interval', default=60, min=10,
               help='Seconds between the backup service\'s capability reports to the '
                    'schedulers.'),
]


def register_opts(conf):
    conf.register_opts(OPTS)


def list_opts():
    return [(None, OPTS)]
