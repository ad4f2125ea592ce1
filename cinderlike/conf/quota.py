"""[DEFAULT] quota options: default limits, reservation lifetime, usage refresh (Cinder's)."""

from oslo_config import cfg

OPTS = [
    cfg.IntOpt('quota_volumes', default=10,
               help='Number of volumes a project may have.'),
    cfg.IntOpt('quota_snapshots', default=10,
               help='Number of volume snapshots a project may have.'),
    cfg.IntOpt('quota_gigabytes', default=1000,
               help='Gigabytes of volumes and snapshots a project may have.'),
    cfg.IntOpt('quota_backups', default=10,
               help='Number of volume backups a project may have.'),
    cfg.IntOpt('quota_backup_gigabytes', default=1000,
               help='Gigabytes of backups a project may have.'),
    cfg.IntOpt('quota_groups', default=10,
               help='Number of groups a project may have.'),
    cfg.IntOpt('per_volume_size_limit', default=-1,
               help='Largest volume a project may create, in gigabytes; -1 for no limit.'),
    cfg.IntOpt('reservation_expire', default=86400,
               help='Seconds after which an uncommitted quota reservation expires.'),
    cfg.IntOpt('reservation_clean_interval', default='$reservation_expire',
               help='Seconds between runs of the periodic task that rolls back expired '
                    'reservations.'),
    cfg.IntOpt('until_refresh', default=0,
               help='Reservations after which a usage is recounted from the resources; '
                    '0 never.'),
    cfg.IntOpt('max_age', default=0,
               help='Seconds after which a usage is recounted from the resources; 0 never.'),
    cfg.BoolOpt('use_default_quota_class', default=True,
                help="Take default limits from quota class 'default' before these options."),
    cfg.BoolOpt('no_snapshot_gb_quota', default=False,
                help='Whether snapshots are left out of the gigabytes quota.'),
]


def register_opts(conf):
    conf.register_opts(OPTS)


def list_opts():
    return [(None, OPTS)]
