"""[metrics] options: where each daemon serves its Prometheus metrics."""

from oslo_config import cfg

GROUP = 'metrics'

OPTS = [
    cfg.HostAddressOpt('listen', default='127.0.0.1',
                       help='Address the daemons serve their Prometheus metrics on.'),
    cfg.PortOpt('api_port',
                help='Port of cinderlike-api\'s /metrics: request latency by route and '
                     'status, summed over its gunicorn workers (served by the master '
                     'process). Unset: not served.'),
    cfg.PortOpt('scheduler_port',
                help='Port of cinderlike-scheduler\'s /metrics; unset: not served.'),
    cfg.PortOpt('volume_port',
                help='Port of the first enabled backend\'s cinderlike-volume worker; the n-th '
                     'backend of enabled_backends serves on volume_port + n - 1. Unset: not '
                     'served.'),
    cfg.PortOpt('backup_port',
                help='Port of cinderlike-backup\'s /metrics; unset: not served.'),
]


def register_opts(conf):
    conf.register_opts(OPTS, group=GROUP)


def list_opts():
    return [(GROUP, OPTS)]
