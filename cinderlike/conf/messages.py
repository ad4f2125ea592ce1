"""[DEFAULT] user-message options: how long messages live and how often the scheduler reaps them."""

from oslo_config import cfg

OPTS = [
    cfg.IntOpt('message_ttl', default=2592000,
               help='Seconds a user message is kept at least.'),
    cfg.IntOpt('message_reap_interval', default=86400,
               help='Seconds between runs of the periodic task that deletes expired '
                    'user messages.'),
]


def register_opts(conf):
    conf.register_opts(OPTS)


def list_opts():
    return [(None, OPTS)]
