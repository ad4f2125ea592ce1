"""iSCSI targets a driver exports its volumes through (cinderlike-volume process), as Cinder's
cinder/volume/targets: the backend's `target_helper` picks the helper.
"""

from oslo_config import cfg
from oslo_utils import netutils

from cinderlike.drivers.volume.targets import tgt

# NOTE(defaults): Cinder's names and defaults, except two. `target_helper` defaults to `fake`
# (no target: hosts open the image file through os-brick's local connector), so a file
# backend keeps working on hosts without tgtd; `volumes_dir` defaults to $state_path/targets
# because the file driver's images already live in $state_path/volumes under the same names.
TARGET_OPTS = [
    cfg.StrOpt('target_helper', default='fake',
               choices=[('tgtadm', 'Linux SCSI Target Administration Utility (tgtd)'),
                        ('fake', 'no target: the local connector opens the volume file')],
               help='Target user-land tool to use.'),
    cfg.StrOpt('target_protocol', default='iscsi', choices=[('iscsi', 'iSCSI')],
               help='Target protocol of new exports (tgtadm).'),
    cfg.HostAddressOpt('target_ip_address', default=netutils.get_my_ipv4(),
                       sample_default='<host_ipv4>',
                       help='The IP address that the iSCSI daemon is listening on.'),
    cfg.PortOpt('target_port', default=3260,
                help='The port that the iSCSI daemon is listening on.'),
    cfg.StrOpt('target_prefix', default='iqn.2010-10.org.openstack:',
               help='Prefix for iSCSI volumes.'),
    cfg.StrOpt('volumes_dir', default='$state_path/targets',
               help='Volume configuration file storage directory: one tgt target file per '
                    'exported volume.'),
    cfg.StrOpt('iscsi_write_cache', default='on',
               choices=[('on', 'Perform write-back'), ('off', 'Perform write-through')],
               help='For tgtadm: sets the behaviour of the iSCSI target to either perform '
                    'write-back or write-through.'),
    cfg.StrOpt('iscsi_target_flags', default='',
               help='For tgtadm: backing device flags (tgt\'s bsoflags), passed as is, '
                    'e.g. "direct" or "sync".'),
    cfg.IntOpt('tgt_control_port', default=0, min=0, max=32767,
               help='For tgtadm: management port of the tgtd to configure (tgtd -C); '
                    '0 is tgtd\'s default. Lets several tgtd run on one host.'),
]


def target_for(configuration):
    """The target helper `target_helper` names, or None for `fake` (no target)."""
    if configuration.target_helper == 'tgtadm':
        return tgt.TgtAdm(configuration)
    return None
