"""[DEFAULT] scheduler service options: start-up wait for reports and the capacity check."""

from oslo_config import cfg

OPTS = [
    cfg.IntOpt('scheduler_driver_init_wait_time', default=60, min=1,
               help='Maximum time in seconds to wait for the driver to report as ready'),
    # NOTE(capacity): not a Cinder option; Cinder keeps no capacity claims to check.
    cfg.IntOpt('capacity_check_interval', default=600, min=1,
               help="Seconds between the scheduler's checks that every pool's claimed "
                    'capacity equals the sizes of its live volumes (drift is logged; '
                    '`cinderlike-manage capacity check --fix` repairs it).'),
]


def register_opts(conf):
    conf.register_opts(OPTS)


def list_opts():
    return [(None, OPTS)]
