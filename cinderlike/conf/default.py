"""[DEFAULT] options every cinderlike service reads: identity, liveness and periodic timing."""

import socket

from oslo_config import cfg

OPTS = [
    cfg.HostAddressOpt('host', default=socket.gethostname(), sample_default='<hostname>',
                       help='Name of this node, used in service rows and RPC topics.'),
    cfg.IntOpt('report_interval', default=10, min=1,
               help='Seconds between heartbeats a service writes to its services row.'),
    cfg.IntOpt('service_down_time', default=60, min=1,
               help='A service whose last heartbeat is older than this many seconds is down.'),
    cfg.IntOpt('periodic_interval', default=60, min=1,
               help='Seconds between runs of the periodic task loop.'),
    cfg.IntOpt('periodic_fuzzy_delay', default=60, min=0,
               help='Upper bound in seconds of the random delay before the first periodic run, '
                    'so that services started together do not run their periodics together.'),
    cfg.ListOpt('enabled_backends', default=[],
                help='Backend config sections to run; cinderlike-volume starts one process each.'),
    cfg.StrOpt('cluster',
               help='Name of the Active-Active cluster this volume service belongs to.'),
    cfg.StrOpt('storage_availability_zone', default='nova',
               help='Availability zone of this node.'),
    cfg.StrOpt('default_availability_zone',
               help='Availability zone for volumes created without one; '
                    'storage_availability_zone when unset.'),
    cfg.StrOpt('state_path', default='/var/lib/cinderlike',
               help='Top-level directory for the state cinderlike keeps on disk.'),
    cfg.IntOpt('migration_create_volume_timeout_secs', default=300, min=1,
               help='Seconds a volume migration waits for its destination volume to be '
                    'created on the destination backend.'),
    cfg.StrOpt('rootwrap_config', default='/etc/cinderlike/rootwrap.conf',
               help='Path to the rootwrap configuration used by os-brick.'),
]


def register_opts(conf):
    conf.register_opts(OPTS)


def list_opts():
    return [(None, OPTS)]
