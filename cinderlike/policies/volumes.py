"""Policy defaults of volumes, their metadata and the os-* volume actions (Cinder's names).

Readers list and show, members change their project's volumes, admins force and reset.
"""

from cinderlike.policies import base

CREATE_POLICY = 'volume:create'
CREATE_FROM_IMAGE_POLICY = 'volume:create_from_image'
GET_POLICY = 'volume:get'
GET_ALL_POLICY = 'volume:get_all'
UPDATE_POLICY = 'volume:update'
DELETE_POLICY = 'volume:delete'
FORCE_DELETE_POLICY = 'volume:force_delete'
HOST_ATTRIBUTE_POLICY = 'volume_extension:volume_host_attribute'
TENANT_ATTRIBUTE_POLICY = 'volume_extension:volume_tenant_attribute'
MIG_ATTRIBUTE_POLICY = 'volume_extension:volume_mig_status_attribute'
MULTIATTACH_POLICY = 'volume:multiattach'
ENCRYPTION_METADATA_POLICY = 'volume_extension:volume_encryption_metadata'

GET_METADATA_POLICY = 'volume:get_volume_metadata'
CREATE_METADATA_POLICY = 'volume:create_volume_metadata'
UPDATE_METADATA_POLICY = 'volume:update_volume_metadata'
DELETE_METADATA_POLICY = 'volume:delete_volume_metadata'
UPDATE_ADMIN_METADATA_POLICY = 'volume:update_volume_admin_metadata'

EXTEND_POLICY = 'volume:extend'
EXTEND_ATTACHED_POLICY = 'volume:extend_attached_volume'
REVERT_POLICY = 'volume:revert_to_snapshot'
RESET_STATUS_POLICY = 'volume_extension:volume_admin_actions:reset_status'
RETYPE_POLICY = 'volume:retype'
MIGRATE_POLICY = 'volume_extension:volume_admin_actions:migrate_volume'
MIGRATE_COMPLETE_POLICY = 'volume_extension:volume_admin_actions:migrate_volume_completion'
UPDATE_READONLY_POLICY = 'volume:update_readonly_flag'
ADMIN_FORCE_DELETE_POLICY = 'volume_extension:volume_admin_actions:force_delete'
FORCE_DETACH_POLICY = 'volume_extension:volume_admin_actions:force_detach'
# The legacy attach actions (Cinder's volume_actions policies).
INITIALIZE_POLICY = 'volume_extension:volume_actions:initialize_connection'
TERMINATE_POLICY = 'volume_extension:volume_actions:terminate_connection'
ROLL_DETACHING_POLICY = 'volume_extension:volume_actions:roll_detaching'
RESERVE_POLICY = 'volume_extension:volume_actions:reserve'
UNRESERVE_POLICY = 'volume_extension:volume_actions:unreserve'
BEGIN_DETACHING_POLICY = 'volume_extension:volume_actions:begin_detaching'
ATTACH_POLICY = 'volume_extension:volume_actions:attach'
DETACH_POLICY = 'volume_extension:volume_actions:detach'

_READER = base.SYSTEM_ADMIN_OR_PROJECT_READER
_MEMBER = base.SYSTEM_ADMIN_OR_PROJECT_MEMBER
_ADMIN = base.RULE_ADMIN_API

_ITEM = '/volumes/{volume_id}'
_META = _ITEM + '/metadata'
_SHOWN = (('GET', _ITEM), ('GET', '/volumes/detail'))


def _action(name: str) -> tuple[str, str]:
    return 'POST', f'{_ITEM}/action ({name})'


rules = [
    base.owned(CREATE_POLICY, _MEMBER, 'Create volume.', ('POST', '/volumes'), was=''),
    base.owned(CREATE_FROM_IMAGE_POLICY, _MEMBER, 'Create volume from image.',
               ('POST', '/volumes'), was=''),
    base.owned(GET_POLICY, _READER, 'Show volume.', ('GET', _ITEM)),
    base.owned(GET_ALL_POLICY, _READER, 'List volumes or get summary of volumes.',
               ('GET', '/volumes'), ('GET', '/volumes/detail'), ('GET', '/volumes/summary')),
    base.owned(UPDATE_POLICY, _MEMBER, "Update volume or update a volume's bootable status.",
               ('PUT', '/volumes'), _action('os-set_bootable')),
    base.owned(DELETE_POLICY, _MEMBER, 'Delete volume.', ('DELETE', _ITEM)),
    base.rule(FORCE_DELETE_POLICY, _ADMIN, 'Force Delete a volume.', ('DELETE', _ITEM)),
    base.rule(HOST_ATTRIBUTE_POLICY, _ADMIN, 'List or show volume with host attribute.',
              *_SHOWN),
    base.owned(TENANT_ATTRIBUTE_POLICY, _READER, 'List or show volume with tenant attribute.',
               *_SHOWN),
    base.rule(MIG_ATTRIBUTE_POLICY, _ADMIN,
              'List or show volume with migration status attribute.', *_SHOWN),
    base.owned(MULTIATTACH_POLICY, _MEMBER, 'Create multiattach capable volume.',
               ('POST', '/volumes')),
    base.owned(GET_METADATA_POLICY, _READER,
               "Show volume's metadata or one specified metadata with a given key.",
               ('GET', _META), ('GET', _META + '/{key}')),
    base.owned(CREATE_METADATA_POLICY, _MEMBER, 'Create volume metadata.', ('POST', _META)),
    base.owned(UPDATE_METADATA_POLICY, _MEMBER,
               "Replace a volume's metadata dictionary or update a single metadatum with a "
               'given key.', ('PUT', _META), ('PUT', _META + '/{key}')),
    base.owned(DELETE_METADATA_POLICY, _MEMBER, "Delete a volume's metadatum with the given key.",
               ('DELETE', _META + '/{key}')),
    base.rule(UPDATE_ADMIN_METADATA_POLICY, _ADMIN,
              'Update volume admin metadata. This permission is required to complete these API '
              'calls, though the ability to make these calls is governed by other policies.',
              _action('os-update_readonly_flag'), _action('os-attach')),
    base.owned(EXTEND_POLICY, _MEMBER, 'Extend a volume.', _action('os-extend')),
    base.owned(EXTEND_ATTACHED_POLICY, _MEMBER, 'Extend a attached volume.',
               _action('os-extend')),
    base.owned(REVERT_POLICY, _MEMBER, 'Revert a volume to a snapshot.', _action('revert')),
    base.rule(RESET_STATUS_POLICY, _ADMIN, 'Reset status of a volume.',
              _action('os-reset_status')),
    base.owned(UPDATE_READONLY_POLICY, _MEMBER, "Update a volume's readonly flag.",
               _action('os-update_readonly_flag')),
    base.rule(ADMIN_FORCE_DELETE_POLICY, _ADMIN, 'Force delete a volume.',
              _action('os-force_delete')),
    base.rule(FORCE_DETACH_POLICY, _ADMIN, 'Force detach a volume.', _action('os-force_detach')),
    base.owned(RETYPE_POLICY, _MEMBER, 'Retype a volume.', _action('os-retype')),
    base.rule(MIGRATE_POLICY, _ADMIN, 'migrate a volume to a specified host.',
              _action('os-migrate_volume')),
    base.rule(MIGRATE_COMPLETE_POLICY, _ADMIN, 'Complete a volume migration.',
              _action('os-migrate_volume_completion')),
    base.owned(INITIALIZE_POLICY, _MEMBER, 'Initialize volume attachment.',
               _action('os-initialize_connection')),
    base.owned(TERMINATE_POLICY, _MEMBER, 'Terminate volume attachment.',
               _action('os-terminate_connection')),
    base.owned(ROLL_DETACHING_POLICY, _MEMBER, "Roll back volume status to 'in-use'.",
               _action('os-roll_detaching')),
    base.owned(RESERVE_POLICY, _MEMBER, 'Mark volume as reserved.', _action('os-reserve')),
    base.owned(UNRESERVE_POLICY, _MEMBER, 'Unmark volume as reserved.', _action('os-unreserve')),
    base.owned(BEGIN_DETACHING_POLICY, _MEMBER, 'Begin detach volumes.',
               _action('os-begin_detaching')),
    base.owned(ATTACH_POLICY, _MEMBER, 'Add attachment metadata.', _action('os-attach')),
    base.owned(DETACH_POLICY, _MEMBER, 'Clear attachment metadata.', _action('os-detach')),
    base.owned(ENCRYPTION_METADATA_POLICY, _READER, "Show volume's encryption metadata.",
               ('GET', _ITEM + '/encryption'), ('GET', _ITEM + '/encryption/{encryption_key}')),
]


def list_rules():
    return rules
