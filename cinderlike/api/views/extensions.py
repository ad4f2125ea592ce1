"""cinderlike-api: Cinder's contrib extensions → the /extensions documents.

Cinder loads every module of cinder/api/contrib (`osapi_volume_extension` defaults to
`standard_extensions`) and shows each descriptor's name, alias, docstring and `updated`.
"""

import dataclasses


@dataclasses.dataclass(frozen=True)
class Extension:
    """One of Cinder's ExtensionDescriptor classes, as GET /extensions shows it."""

    name: str
    alias: str
    updated: str
    description: str


# NOTE(order): Cinder lists them in the order os.walk meets its contrib files, which the
# filesystem decides; here they follow the module names (admin_actions … volume_unmanage).
EXTENSIONS = (
    Extension('AdminActions', 'os-admin-actions', '2012-08-25T00:00:00+00:00',
              'Enable admin actions.'),
    Extension('AvailabilityZones', 'os-availability-zone', '2013-06-27T00:00:00+00:00',
              'Describe Availability Zones.'),
    Extension('Backups', 'backups', '2012-12-12T00:00:00+00:00', 'Backups support.'),
    Extension('Capabilities', 'capabilities', '2015-08-31T00:00:00+00:00',
              'Capabilities support.'),
    Extension('Cgsnapshots', 'cgsnapshots', '2014-08-18T00:00:00+00:00',
              'cgsnapshots support.'),
    Extension('Consistencygroups', 'consistencygroups', '2014-08-18T00:00:00+00:00',
              'consistency groups support.'),
    Extension('ExtendedServices', 'os-extended-services', '2014-01-10T00:00:00-00:00',
              'Extended services support.'),
    Extension('ExtendedSnapshotAttributes', 'os-extended-snapshot-attributes',
              '2012-06-19T00:00:00+00:00', 'Extended SnapshotAttributes support.'),
    Extension('Hosts', 'os-hosts', '2011-06-29T00:00:00+00:00',
              'Admin-only host administration.'),
    Extension('Qos_specs_manage', 'qos-specs', '2013-08-02T00:00:00+00:00',
              'QoS specs support.'),
    Extension('QuotaClasses', 'os-quota-class-sets', '2012-03-12T00:00:00+00:00',
              'Quota classes management support.'),
    Extension('Quotas', 'os-quota-sets', '2011-08-08T00:00:00+00:00',
              'Quota management support.'),
    Extension('SchedulerHints', 'OS-SCH-HNT', '2013-04-18T00:00:00+00:00',
              'Pass arbitrary key/value pairs to the scheduler.'),
    Extension('Scheduler_stats', 'scheduler-stats', '2014-09-07T00:00:00+00:00',
              'Scheduler stats support.'),
    Extension('Services', 'os-services', '2012-10-28T00:00:00-00:00', 'Services support.'),
    Extension('SnapshotActions', 'os-snapshot-actions', '2013-07-16T00:00:00+00:00',
              'Enable snapshot manager actions.'),
    Extension('SnapshotManage', 'os-snapshot-manage', '2014-12-31T00:00:00+00:00',
              "Allows existing backend storage to be 'managed' by Cinder."),
    Extension('SnapshotUnmanage', 'os-snapshot-unmanage', '2014-12-31T00:00:00+00:00',
              'Enable volume unmanage operation.'),
    Extension('TypesExtraSpecs', 'os-types-extra-specs', '2011-08-24T00:00:00+00:00',
              'Type extra specs support.'),
    Extension('TypesManage', 'os-types-manage', '2011-08-24T00:00:00+00:00',
              'Types manage support.'),
    Extension('UsedLimits', 'os-used-limits', '2013-10-03T00:00:00+00:00',
              'Provide data on limited resources that are being used.'),
    Extension('VolumeActions', 'os-volume-actions', '2012-05-31T00:00:00+00:00',
              'Enable volume actions.'),
    Extension('VolumeEncryptionMetadata', 'os-volume-encryption-metadata',
              '2013-07-10T00:00:00+00:00', 'Volume encryption metadata retrieval support.'),
    Extension('VolumeHostAttribute', 'os-vol-host-attr', '2011-11-03T00:00:00+00:00',
              'Expose host as an attribute of a volume.'),
    Extension('VolumeImageMetadata', 'os-vol-image-meta', '2012-12-07T00:00:00+00:00',
              'Show image metadata associated with the volume.'),
    Extension('VolumeManage', 'os-volume-manage', '2014-02-10T00:00:00+00:00',
              "Allows existing backend storage to be 'managed' by Cinder."),
    Extension('VolumeMigStatusAttribute', 'os-vol-mig-status-attr',
              '2013-08-08T00:00:00+00:00',
              'Expose migration_status as an attribute of a volume.'),
    Extension('VolumeTenantAttribute', 'os-vol-tenant-attr', '2011-11-03T00:00:00+00:00',
              'Expose the internal project_id as an attribute of a volume.'),
    Extension('VolumeTransfer', 'os-volume-transfer', '2013-05-29T00:00:00+00:00',
              'Volume transfer management support.'),
    Extension('VolumeTypeAccess', 'os-volume-type-access', '2014-06-26T00:00:00Z',
              'Volume type access support.'),
    Extension('VolumeTypeEncryption', 'encryption', '2013-07-01T00:00:00+00:00',
              'Encryption support for volume types.'),
    Extension('VolumeUnmanage', 'os-volume-unmanage', '2012-05-31T00:00:00+00:00',
              'Enable volume unmanage operation.'),
)
BY_ALIAS = {extension.alias: extension for extension in EXTENSIONS}


def _shown(extension: Extension) -> dict:
    # NOTE(links): Cinder has never filled in extension links ("TODO: implement").
    return {'name': extension.name, 'alias': extension.alias,
            'description': extension.description, 'updated': extension.updated, 'links': []}


def index() -> dict:
    """{"extensions": [{name, alias, description, updated, links}, ...]}."""
    return {'extensions': [_shown(extension) for extension in EXTENSIONS]}


def show(extension: Extension) -> dict:
    return {'extension': _shown(extension)}
