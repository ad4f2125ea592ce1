"""[coordination] options: the tooz backend that serialises driver work across processes."""

from oslo_config import cfg

GROUP = 'coordination'

OPTS = [
    cfg.StrOpt('backend_url', secret=True, default='file://$state_path',
               help='tooz coordination backend: file:// on one host, redis:// or '
                    'etcd3+http:// across hosts.'),
]


def register_opts(conf):
    conf.register_opts(OPTS, group=GROUP)


def list_opts():
    return [(GROUP, OPTS)]
