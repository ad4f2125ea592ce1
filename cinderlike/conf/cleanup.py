"""[DEFAULT] options of workers cleanup in cinderlike-volume: automatic take-over of a dead
cluster peer's in-flight operations (beyond Cinder, from its newton cleanup spec)."""

from oslo_config import cfg

OPTS = [
    cfg.BoolOpt('auto_cleanup_enabled', default=True,
                help='Whether a volume service in a cluster takes over and settles the '
                     'in-flight operations (workers rows) of a member whose heartbeat is '
                     'older than service_down_time, without an operator calling '
                     'POST /workers/cleanup.'),
    cfg.IntOpt('auto_cleanup_interval', default=10, min=1,
               help='Seconds between checks for down members of this service\'s cluster. '
                    'A dead member\'s operations are settled within service_down_time plus '
                    'this interval (plus the time their driver work takes).'),
]


def register_opts(conf):
    conf.register_opts(OPTS)


def list_opts():
    return [(None, OPTS)]
