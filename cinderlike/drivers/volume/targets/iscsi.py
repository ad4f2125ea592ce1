"""The iSCSI target base (Cinder's cinder/volume/targets/iscsi.py): export columns, the
connection info os-brick's iSCSI connector reads, and what a helper implements."""

import abc

from oslo_log import log as logging
from oslo_utils import netutils

from cinderlike import exception
from cinderlike.drivers.volume.targets import chap

LOG = logging.getLogger(__name__)

# Consumers of QoS specs the host (hypervisor) enforces: they travel in the connection info.
FRONTEND_CONSUMERS = ('front-end', 'both')


def sanitize_host(host: str) -> str:
    """IPv6 addresses go in brackets in a portal."""
    return f'[{host}]' if netutils.is_valid_ipv6(host) else host


def frontend_qos(qos_specs: dict | None) -> dict | None:
    """The specs of a type's QoS ({'id', 'name', 'consumer', 'specs'}) the host enforces."""
    if qos_specs and qos_specs.get('consumer') in FRONTEND_CONSUMERS:
        return qos_specs['specs']
    return None


class ISCSITarget(abc.ABC):
    """Exports a volume file or device as the LUN of one iSCSI target per volume."""

    # LUN of the volume in its target (tgt's LUN 0 is the controller).
    LUN = 1

    def __init__(self, configuration):
        self.configuration = configuration

    @property
    def protocol(self) -> str:
        return self.configuration.target_protocol

    def iqn(self, volume) -> str:
        """'iqn.2010-10.org.openstack:volume-<id>': target_prefix and the volume name."""
        return f'{self.configuration.target_prefix}{volume.name}'

    def location(self, tid: str, iqn: str, lun: int) -> str:
        """provider_location as Cinder formats it (the iSCSI discovery output form)."""
        conf = self.configuration
        portal = f'{sanitize_host(conf.target_ip_address)}:{conf.target_port}'
        return f'{portal},{tid} {iqn} {lun}'

    def create_export(self, volume, volume_path: str) -> dict:
        """Export *volume_path*, keeping the volume's CHAP credentials when it has some.

        :returns: the provider_location and provider_auth columns to store.
        """
        credentials = chap.parse(volume.provider_auth) or chap.generate()
        iqn = self.iqn(volume)
        tid = self.create_iscsi_target(volume, iqn, volume_path, credentials)
        return {'provider_location': self.location(tid, iqn, self.LUN),
                'provider_auth': chap.provider_auth(credentials)}

    def ensure_export(self, volume, volume_path: str) -> None:
        """Recreate the target of an exported volume (tgtd restarted) with its credentials.

        NOTE(never-exported): a volume without provider_auth never went through
        create_export here; re-creating its target would export it without CHAP.
        """
        credentials = chap.parse(volume.provider_auth)
        if credentials is None:
            LOG.debug('Volume %s has no export to ensure', volume.id)
            return
        self.create_iscsi_target(volume, self.iqn(volume), volume_path, credentials)

    def remove_export(self, volume) -> None:
        self.remove_iscsi_target(volume, self.iqn(volume))

    def initialize_connection(self, volume, connector: dict) -> dict:
        """Cinder's iSCSI connection info, read from the stored export columns.

        :raises InvalidVolume: the volume has no iSCSI export.
        """
        return {'driver_volume_type': self.protocol,
                'data': self.iscsi_properties(volume, bool(connector.get('multipath')))}

    def iscsi_properties(self, volume, multipath: bool) -> dict:
        fields = (volume.provider_location or '').split(' ')
        if len(fields) != 3 or ',' not in fields[0]:
            raise exception.InvalidVolume(
                reason=f'Could not find iSCSI export for volume {volume.name}')
        portals = fields[0].split(',')[0].split(';')
        iqn, lun = fields[1], int(fields[2])
        data = {'target_discovered': False}
        if len(portals) > 1 or multipath:
            data.update(target_portals=portals, target_iqns=[iqn] * len(portals),
                        target_luns=[lun] * len(portals))
        data.update(target_portal=portals[0], target_iqn=iqn, target_lun=lun,
                    volume_id=volume.id)
        credentials = chap.parse(volume.provider_auth)
        if credentials is not None:
            data.update(auth_method=chap.METHOD, auth_username=credentials[0],
                        auth_password=credentials[1])
        data.update(encrypted=volume.encryption_key_id is not None,
                    qos_specs=frontend_qos(volume.qos_specs),
                    access_mode='ro' if volume.readonly else 'rw')
        return data

    @abc.abstractmethod
    def create_iscsi_target(self, volume, iqn: str, path: str,
                            credentials: tuple[str, str]) -> str:
        """Create (or refresh) the target *iqn* exporting *path* as LUN 1; returns its tid.

        :raises ISCSITargetCreateFailed:
        """

    @abc.abstractmethod
    def remove_iscsi_target(self, volume, iqn: str) -> None:
        """Delete the target and what keeps it; a target that is gone is removed already.

        :raises ISCSITargetRemoveFailed:
        """

    @abc.abstractmethod
    def refresh_target(self, volume) -> None:
        """Make an exported volume's LUN serve its file as it is now (new size, new file)."""
