"""Policy defaults of volume types, their extra specs, type access and default types.

Cinder's names and defaults: readers may list and show types, admins change them.
"""

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

_READER = base.SYSTEM_ADMIN_OR_PROJECT_READER
_ADMIN = base.RULE_ADMIN_API
_SHOW = ('GET', '/types/{type_id}')
_LIST = ('GET', '/types')
_SPECS = '/types/{type_id}/extra_specs'
_SPEC = _SPECS + '/{extra_spec_key}'
_ACTION = '/types/{type_id}/action'
_GOVERNED = '  The ability to make these calls is governed by other policies.'
_TYPES_MANAGE = base.replaced('volume_extension:types_manage', 'POST, PUT, and DELETE')
_DEFAULT_WAS = base.RULE_SYSTEM_OR_DOMAIN_OR_PROJECT_ADMIN

rules = [
    base.rule(CREATE_POLICY, _ADMIN, 'Create volume type.', ('POST', '/types'),
              deprecated_rule=_TYPES_MANAGE),
    base.rule(UPDATE_POLICY, _ADMIN, 'Update volume type.', ('PUT', '/types'),
              deprecated_rule=_TYPES_MANAGE),
    base.rule(DELETE_POLICY, _ADMIN, 'Delete volume type.', ('DELETE', '/types'),
              deprecated_rule=_TYPES_MANAGE),
    base.owned(GET_POLICY, _READER, 'Get one specific volume type.', _SHOW, was=''),
    base.owned(GET_ALL_POLICY, _READER, 'List volume types.', ('GET', '/types/'), was=''),
    base.owned(EXTRA_SPEC_POLICY, _READER,
               "Include the volume type's extra_specs attribute in the volume type list or "
               'show requests.' + _GOVERNED, _SHOW, _LIST, was=_ADMIN),
    base.rule(QOS_POLICY, _ADMIN,
              "Include the volume type's QoS specifications ID attribute in the volume type "
              'list or show requests.' + _GOVERNED, _SHOW, _LIST),
    base.owned(SPECS_GET_ALL_POLICY, _READER, 'List type extra specs.', ('GET', _SPECS), was=''),
    base.rule(SPECS_CREATE_POLICY, _ADMIN, 'Create type extra specs.', ('POST', _SPECS)),
    base.owned(SPECS_GET_POLICY, _READER, 'Show one specified type extra specs.',
               ('GET', _SPEC), was=''),
    base.rule(SPECS_READ_SENSITIVE_POLICY, _ADMIN,
              'Include extra_specs fields that may reveal sensitive information about the '
              'deployment that should not be exposed to end users in various volume-type '
              'responses that show extra_specs. The ability to make these calls is governed by '
              'other policies.', _LIST, _SHOW, ('GET', _SPECS), ('GET', _SPEC)),
    base.rule(SPECS_UPDATE_POLICY, _ADMIN, 'Update type extra specs.', ('PUT', _SPEC)),
    base.rule(SPECS_DELETE_POLICY, _ADMIN, 'Delete type extra specs.', ('DELETE', _SPEC)),
    base.owned(TYPE_ACCESS_POLICY, base.SYSTEM_ADMIN_OR_PROJECT_MEMBER,
               "Adds the boolean field 'os-volume-type-access:is_public' to the responses for "
               'these API calls.' + _GOVERNED, _LIST, _SHOW, ('POST', '/types')),
    base.rule(ADD_PROJECT_POLICY, _ADMIN, 'Add volume type access for project.',
              ('POST', _ACTION + ' (addProjectAccess)')),
    base.rule(REMOVE_PROJECT_POLICY, _ADMIN, 'Remove volume type access for project.',
              ('POST', _ACTION + ' (removeProjectAccess)')),
    # NOTE(rule-prefix): Cinder's deprecated check string lacks its `rule:` prefix; kept as
    # Cinder ships it (oslo.policy reads it as a generic check that never matches).
    base.rule(TYPE_ACCESS_WHO_POLICY, _ADMIN,
              'List private volume type access detail, that is, list the projects that have '
              'access to this volume type.', ('GET', '/types/{type_id}/os-volume-type-access'),
              deprecated_rule=base.deprecated(
                  TYPE_ACCESS_WHO_POLICY, TYPE_ACCESS_POLICY,
                  reason=f"Reason: '{TYPE_ACCESS_WHO_POLICY}' is a new policy that protects an "
                         f"API call formerly governed by '{TYPE_ACCESS_POLICY}', but which has "
                         'been separated for finer-grained policy control.')),
    base.owned(DEFAULT_SET_POLICY, _ADMIN, 'Set or update default volume type.',
               ('PUT', '/default-types'), was=_DEFAULT_WAS),
    base.owned(DEFAULT_GET_POLICY, _ADMIN, 'Get default types.',
               ('GET', '/default-types/{project-id}'), was=_DEFAULT_WAS),
    base.owned(DEFAULT_GET_ALL_POLICY, _ADMIN,
               'Get all default types. WARNING: Changing this might open up too much '
               'information regarding cloud deployment.', ('GET', '/default-types/'),
               was=base.SYSTEM_ADMIN),
    base.owned(DEFAULT_UNSET_POLICY, _ADMIN, 'Unset default type.',
               ('DELETE', '/default-types/{project-id}'), was=_DEFAULT_WAS),
]


def list_rules():
    return rules
