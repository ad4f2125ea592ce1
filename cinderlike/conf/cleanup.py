"""[DEFAULT] options of workers cleanup in cinderlike-volume: automatic take-over of a dead
cluster peer's in-flight operations (beyond Cinder, from its newton cleanup spec), and the
sweep of operations no service took up."""

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
    cfg.IntOpt('lost_operation_timeout', default=300, min=1,
               help='Seconds after which a volume or backup service settles an operation '
                    'the API accepted that no service took up (its cast, or the '
                    'scheduler\'s, was lost, or the service died before starting it): a '
                    'create or an extend fails with a user message, a delete is resumed by '
                    'its backend (a backup\'s by its host), a restore ends as after a '
                    'backup service restart. Longer than the longest a busy scheduler takes '
                    'to place a volume.'),
    cfg.IntOpt('lost_operation_interval', default=60, min=1,
               help='Seconds between a volume or backup service\'s checks for operations '
                    'no service took up (lost_operation_timeout).'),
]


def register_opts(conf):
    conf.register_opts(OPTS)


def list_opts():
    return [(None, OPTS)]
