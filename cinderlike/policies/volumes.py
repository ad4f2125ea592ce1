"""Policy defaults of volumes, their metadata and the os-* volume actions (Cinder's names).

Readers list and show, members change their project's volumes, admins force and reset.
"""

from oslo_policy import policy

from cinderlike.policies import base

CREATE_POLICY = 'volume:create'
GET_POLICY = 'volume:get'
GET_ALL_POLICY = 'volume:get_all'
UPDATE_POLICY = 'volume:update'
DELETE_POLICY = 'volume:delete'
FORCE_DELETE_POLICY = 'volume:force_delete'
TENANT_ATTRIBUTE_POLICY = 'volume_extension:volume_tenant_attribute'
HOST_ATTRIBUTE_POLICY = 'volume_extension:volume_host_attribute'
MIG_ATTRIBUTE_POLICY = 'volume_extension:volume_mig_status_attribute'

GET_METADATA_POLICY = 'volume:get_volume_metadata'
CREATE_METADATA_POLICY = 'volume:create_volume_metadata'
UPDATE_METADATA_POLICY = 'volume:update_volume_metadata'
DELETE_METADATA_POLICY = 'volume:delete_volume_metadata'

EXTEND_POLICY = 'volume:extend'
EXTEND_ATTACHED_POLICY = 'volume:extend_attached_volume'
UPDATE_READONLY_POLICY = 'volume:update_readonly_flag'
REVERT_POLICY = 'volume:revert_to_snapshot'
RESET_STATUS_POLICY = 'volume_extension:volume_admin_actions:reset_status'
ADMIN_FORCE_DELETE_POLICY = 'volume_extension:volume_admin_actions:force_delete'
FORCE_DETACH_POLICY = 'volume_extension:volume_admin_actions:force_detach'
# The legacy attach actions (Cinder's volume_actions policies).
RESERVE_POLICY = 'volume_extension:volume_actions:reserve'
UNRESERVE_POLICY = 'volume_extension:volume_actions:unreserve'
BEGIN_DETACHING_POLICY = 'volume_extension:volume_actions:begin_detaching'
ROLL_DETACHING_POLICY = 'volume_extension:volume_actions:roll_detaching'
INITIALIZE_POLICY = 'volume_extension:volume_actions:initialize_connection'
TERMINATE_POLICY = 'volume_extension:volume_actions:terminate_connection'
ATTACH_POLICY = 'volume_extension:volume_actions:attach'
DETACH_POLICY = 'volume_extension:volume_actions:detach'

_READER = base.SYSTEM_ADMIN_OR_PROJECT_READER
_MEMBER = base.SYSTEM_ADMIN_OR_PROJECT_MEMBER
_ADMIN = base.RULE_ADMIN_API


def _rule(name, check_str, description, method, path):
    return policy.DocumentedRuleDefault(name=name, check_str=check_str,
                                        description=description,
                                        operations=[{'method': method, 'path': path}])


_ACTION = '/volumes/{volume_id}/action'
_META = '/volumes/{volume_id}/metadata'

rules = [
    _rule(CREATE_POLICY, _MEMBER, 'Create volume.', 'POST', '/volumes'),
    _rule(GET_POLICY, _READER, 'Show volume.', 'GET', '/volumes/{volume_id}'),
    _rule(GET_ALL_POLICY, _READER, 'List volumes or get summary of volumes.',
          'GET', '/volumes/detail'),
    _rule(UPDATE_POLICY, _MEMBER, 'Update volume or update a volume\'s bootable status.',
          'PUT', '/volumes'),
    _rule(DELETE_POLICY, _MEMBER, 'Delete volume.', 'DELETE', '/volumes/{volume_id}'),
    _rule(FORCE_DELETE_POLICY, _ADMIN, 'Force Delete a volume.',
          'DELETE', '/volumes/{volume_id}'),
    _rule(TENANT_ATTRIBUTE_POLICY, _READER, 'List or show volume with tenant attribute.',
          'GET', '/volumes/{volume_id}'),
    _rule(HOST_ATTRIBUTE_POLICY, _ADMIN, 'List or show volume with host attribute.',
          'GET', '/volumes/{volume_id}'),
    _rule(MIG_ATTRIBUTE_POLICY, _ADMIN, 'List or show volume with migration status attribute.',
          'GET', '/volumes/{volume_id}'),
    _rule(GET_METADATA_POLICY, _READER, "Show volume's metadata or one specified metadata "
          'with a given key.', 'GET', _META),
    _rule(CREATE_METADATA_POLICY, _MEMBER, 'Create volume metadata.', 'POST', _META),
    _rule(UPDATE_METADATA_POLICY, _MEMBER, "Replace a volume's metadata dictionary or update "
          'a single metadatum with a given key.', 'PUT', _META),
    _rule(DELETE_METADATA_POLICY, _MEMBER, "Delete a volume's metadatum with the given key.",
          'DELETE', _META + '/{key}'),
    _rule(EXTEND_POLICY, _MEMBER, 'Extend a volume.', 'POST', _ACTION + ' (os-extend)'),
    _rule(EXTEND_ATTACHED_POLICY, _MEMBER, 'Extend a attached volume.',
          'POST', _ACTION + ' (os-extend)'),
    _rule(UPDATE_READONLY_POLICY, _MEMBER, 'Update volume read-only status.',
          'POST', _ACTION + ' (os-update_readonly_flag)'),
    _rule(REVERT_POLICY, _MEMBER, 'Revert a volume to a snapshot.',
          'POST', _ACTION + ' (revert)'),
    _rule(RESET_STATUS_POLICY, _ADMIN, 'Reset status of a volume.',
          'POST', _ACTION + ' (os-reset_status)'),
    _rule(ADMIN_FORCE_DELETE_POLICY, _ADMIN, 'Force delete a volume.',
          'POST', _ACTION + ' (os-force_delete)'),
    _rule(FORCE_DETACH_POLICY, _ADMIN, 'Force detach a volume.',
          'POST', _ACTION + ' (os-force_detach)'),
    _rule(RESERVE_POLICY, _MEMBER, 'Mark volume as reserved.',
          'POST', _ACTION + ' (os-reserve)'),
    _rule(UNRESERVE_POLICY, _MEMBER, 'Unmark volume as reserved.',
          'POST', _ACTION + ' (os-unreserve)'),
    _rule(BEGIN_DETACHING_POLICY, _MEMBER, 'Begin detach volumes.',
          'POST', _ACTION + ' (os-begin_detaching)'),
    _rule(ROLL_DETACHING_POLICY, _MEMBER, 'Roll back volume status to in-use.',
          'POST', _ACTION + ' (os-roll_detaching)'),
    _rule(INITIALIZE_POLICY, _MEMBER, 'Initialize volume attachment.',
          'POST', _ACTION + ' (os-initialize_connection)'),
    _rule(TERMINATE_POLICY, _MEMBER, 'Terminate volume attachment.',
          'POST', _ACTION + ' (os-terminate_connection)'),
    _rule(ATTACH_POLICY, _MEMBER, 'Attach a volume.', 'POST', _ACTION + ' (os-attach)'),
    _rule(DETACH_POLICY, _MEMBER, 'Clear attachment metadata.',
          'POST', _ACTION + ' (os-detach)'),
]


def list_rules():
    return rules
