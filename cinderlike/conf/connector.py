"""[DEFAULT] options of the host connector (cinderlike-backup and cinderlike-volume reaching a
volume's bytes): what this host tells a volume service about itself (Cinder's names)."""

from oslo_config import cfg
from oslo_utils import netutils

OPTS = [
    cfg.HostAddressOpt('my_ip', default=netutils.get_my_ipv4(),
                       sample_default='<HOST_IP_ADDRESS>',
                       help='IP address of this host'),
]


def register_opts(conf):
    conf.register_opts(OPTS)


def list_opts():
    return [(None, OPTS)]
