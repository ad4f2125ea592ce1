"""[healthcheck] options of cinderlike-api's /healthcheck: oslo.middleware's own, listed here
so the sample file shows them, and the timeout of cinderlike's reachability checks."""

from oslo_config import cfg
from oslo_middleware.healthcheck import opts as healthcheck_opts

GROUP = 'healthcheck'

OPTS = [
    cfg.FloatOpt('check_timeout', default=3.0, min=0.1,
                 help='Seconds each reachability check (database, message broker) of '
                      '/healthcheck may take before it counts as unreachable.'),
]


def register_opts(conf):
    conf.register_opts(OPTS + healthcheck_opts.HEALTHCHECK_OPTS, group=GROUP)
    conf.register_opts(healthcheck_opts.DISABLE_BY_FILE_OPTS, group=GROUP)


def list_opts():
    return [(GROUP, OPTS + healthcheck_opts.HEALTHCHECK_OPTS
             + healthcheck_opts.DISABLE_BY_FILE_OPTS)]
