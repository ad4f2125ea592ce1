"""[DEFAULT] options of cinderlike-backup."""

from oslo_config import cfg

OPTS = [
    # The backup service's own options (backupsvc); driver options follow.
    cfg.BoolOpt('backup_use_same_host', default=False,
                help='Back up a volume on the backup service of its volume host when that '
                     'one is up, instead of any backup service of its availability zone.'),
    cfg.BoolOpt('backup_use_temp_snapshot', default=False,
                help='Back up an in-use volume through a temporary snapshot instead of a '
                     'temporary cloned volume.'),
    cfg.IntOpt('backup_driver_init_check_interval', default=60, min=1,
               help='Seconds between attempts to initialise the backup driver while it '
                    'fails its check; the service reports down until it passes.'),
    cfg.IntOpt('backup_driver_stats_polling_interval', default=60, min=10,
               help='Seconds between the backup service\'s capability reports to the '
                    'schedulers.'),
]


def register_opts(conf):
    conf.register_opts(OPTS)


def list_opts():
    return [(None, OPTS)]
