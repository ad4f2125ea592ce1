"""Policy defaults of volume types, their extra specs, type access and default types.

Cinder's names and Xena defaults: readers may list and show types, admins change them.
"""

from oslo_policy import policy

from cinderlike.policies import base

CREATE_POLICY = 'volume_extension:type_create'
UPDATE_POLICY = 'volume_extension:type_update'
DELETE_POLICY = 'volume_extension:type_delete'
GET_POLICY = 'volume_extension:type_get'
GET_ALL_POLICY = 'volume_extension:type_get_all'
QOS_POLICY = 'volume_extension:access_types_qos_specs_id'
EXTRA_SPEC_POLICY = 'volume_extension:access_types_extra_specs'

SPECS_CREATE_POLICY = 'volume_extension:types_extra_specs:create'
SPECS_DELETE_POLICY = 'volume_extension:types_extra_specs:delete'
SPECS_GET_ALL_POLICY = 'volume_extension:types_extra_specs:index'
SPECS_GET_POLICY = 'volume_extension:types_extra_specs:show'
SPECS_READ_SENSITIVE_POLICY = 'volume_extension:types_extra_specs:read_sensitive'
SPECS_UPDATE_POLICY = 'volume_extension:types_extra_specs:update'
# Specs every reader sees even without read_sensitive.
USER_VISIBLE_EXTRA_SPECS = ('RESKEY:availability_zones', 'multiattach', 'replication_enabled')

TYPE_ACCESS_POLICY = 'volume_extension:volume_type_access'
TYPE_ACCESS_WHO_POLICY = 'volume_extension:volume_type_access:get_all_for_type'
ADD_PROJECT_POLICY = 'volume_extension:volume_type_access:addProjectAccess'
REMOVE_PROJECT_POLICY = 'volume_extension:volume_type_access:removeProjectAccess'

DEFAULT_SET_POLICY = 'volume_extension:default_set_or_update'
DEFAULT_GET_POLICY = 'volume_extension:default_get'
DEFAULT_GET_ALL_POLICY = 'volume_extension:default_get_all'
DEFAULT_UNSET_POLICY = 'volume_extension:default_unset'


def _rule(name, check_str, description, *operations):
    return policy.DocumentedRuleDefault(
        name=name, check_str=check_str, description=description,
        operations=[{'method': method, 'path': path} for method, path in operations])


_READER = base.SYSTEM_ADMIN_OR_PROJECT_READER
_ADMIN = base.RULE_ADMIN_API
_SHOW = ('GET', '/types/{type_id}')
_LIST = ('GET', '/types')
_SPEC = '/types/{type_id}/extra_specs/{extra_spec_key}'
_ACTION = '/types/{type_id}/action'

rules = [
    _rule(CREATE_POLICY, _ADMIN, 'Create volume type.', ('POST', '/types')),
    _rule(UPDATE_POLICY, _ADMIN, 'Update volume type.', ('PUT', '/types')),
    _rule(DELETE_POLICY, _ADMIN, 'Delete volume type.', ('DELETE', '/types')),
    _rule(GET_POLICY, _READER, 'Get one specific volume type.', _SHOW),
    _rule(GET_ALL_POLICY, _READER, 'List volume types.', _LIST),
    _rule(EXTRA_SPEC_POLICY, _READER,
          "Include the volume type's extra_specs attribute in the volume type list or show "
          'requests.', _SHOW, _LIST),
    _rule(QOS_POLICY, _ADMIN,
          "Include the volume type's QoS specifications ID attribute in the volume type list "
          'or show requests.', _SHOW, _LIST),
    _rule(SPECS_GET_ALL_POLICY, _READER, 'List type extra specs.',
          ('GET', '/types/{type_id}/extra_specs')),
    _rule(SPECS_CREATE_POLICY, _ADMIN, 'Create type extra specs.',
          ('POST', '/types/{type_id}/extra_specs')),
    _rule(SPECS_GET_POLICY, _READER, 'Show one specified type extra specs.', ('GET', _SPEC)),
    _rule(SPECS_READ_SENSITIVE_POLICY, _ADMIN,
          'Include extra_specs fields that may reveal sensitive information about the '
          'deployment that should not be exposed to end users in various volume-type '
          'responses that show extra_specs.',
          _LIST, _SHOW, ('GET', '/types/{type_id}/extra_specs'), ('GET', _SPEC)),
    _rule(SPECS_UPDATE_POLICY, _ADMIN, 'Update type extra specs.', ('PUT', _SPEC)),
    _rule(SPECS_DELETE_POLICY, _ADMIN, 'Delete type extra specs.', ('DELETE', _SPEC)),
    _rule(TYPE_ACCESS_POLICY, base.SYSTEM_ADMIN_OR_PROJECT_MEMBER,
          "Adds the boolean field 'os-volume-type-access:is_public' to the responses for "
          'these API calls.', _LIST, _SHOW, ('POST', '/types')),
    _rule(TYPE_ACCESS_WHO_POLICY, _ADMIN,
          'List private volume type access detail, that is, list the projects that have '
          'access to this volume type.', ('GET', '/types/{type_id}/os-volume-type-access')),
    _rule(ADD_PROJECT_POLICY, _ADMIN, 'Add volume type access for project.',
          ('POST', _ACTION + ' (addProjectAccess)')),
    _rule(REMOVE_PROJECT_POLICY, _ADMIN, 'Remove volume type access for project.',
          ('POST', _ACTION + ' (removeProjectAccess)')),
    _rule(DEFAULT_SET_POLICY, _ADMIN, 'Set or update default volume type.',
          ('PUT', '/default-types')),
    _rule(DEFAULT_GET_POLICY, _ADMIN, 'Get default types.',
          ('GET', '/default-types/{project-id}')),
    _rule(DEFAULT_GET_ALL_POLICY, _ADMIN,
          'Get all default types. WARNING: Changing this might open up too much information '
          'regarding cloud deployment.', ('GET', '/default-types/')),
    _rule(DEFAULT_UNSET_POLICY, _ADMIN, 'Unset default type.',
          ('DELETE', '/default-types/{project-id}')),
]


def list_rules():
    return rules
