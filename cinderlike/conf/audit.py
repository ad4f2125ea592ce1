"""[DEFAULT] option of cinderlike-volume-usage-audit: which period a cron run reports on."""

from oslo_config import cfg

OPTS = [
    cfg.StrOpt('volume_usage_audit_period', default='month',
               help='Time period for which to generate volume usages: hour, day, month or '
                    'year, optionally with an offset after "@" (day@18 starts days at 18:00 '
                    'UTC, month@15 on the 15th, year@3 on March 1st, hour@30 at minute 30).'),
]


def register_opts(conf):
    conf.register_opts(OPTS)


def list_opts():
    return [(None, OPTS)]
