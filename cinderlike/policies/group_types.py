"""Policy defaults of group types and their group specs (Cinder's names, admin-only writes).

Listing and showing group types has no rule in Cinder; who sees the specs has one.
"""

from cinderlike.policies import base

CREATE_POLICY = 'group:group_types:create'
UPDATE_POLICY = 'group:group_types:update'
DELETE_POLICY = 'group:group_types:delete'
SHOW_ACCESS_POLICY = 'group:access_group_types_specs'
SPEC_GET_POLICY = 'group:group_types_specs:get'
SPEC_GET_ALL_POLICY = 'group:group_types_specs:get_all'
SPEC_CREATE_POLICY = 'group:group_types_specs:create'
SPEC_UPDATE_POLICY = 'group:group_types_specs:update'
SPEC_DELETE_POLICY = 'group:group_types_specs:delete'

_ADMIN = base.RULE_ADMIN_API
_TYPE = '/group_types/{group_type_id}'
_SPECS = _TYPE + '/group_specs'
_SPEC = _SPECS + '/{g_spec_id}'
_MANAGE = base.replaced('group:group_types_manage', 'POST, PUT, and DELETE')
_SPECS_WAS = base.replaced('group:group_types_specs', 'GET, POST, PUT, and DELETE')

rules = [
    base.rule(CREATE_POLICY, _ADMIN, 'Create a group type.', ('POST', '/group_types/'),
              deprecated_rule=_MANAGE),
    base.rule(UPDATE_POLICY, _ADMIN, 'Update a group type.', ('PUT', _TYPE),
              deprecated_rule=_MANAGE),
    base.rule(DELETE_POLICY, _ADMIN, 'Delete a group type.', ('DELETE', _TYPE),
              deprecated_rule=_MANAGE),
    base.rule(SHOW_ACCESS_POLICY, _ADMIN, 'Show group type with type specs attributes.',
              ('GET', _TYPE)),
    base.rule(SPEC_GET_POLICY, _ADMIN, 'Show a group type spec.', ('GET', _SPEC),
              deprecated_rule=_SPECS_WAS),
    base.rule(SPEC_GET_ALL_POLICY, _ADMIN, 'List group type specs.', ('GET', _SPECS),
              deprecated_rule=_SPECS_WAS),
    base.rule(SPEC_CREATE_POLICY, _ADMIN, 'Create a group type spec.', ('POST', _SPECS),
              deprecated_rule=_SPECS_WAS),
    base.rule(SPEC_UPDATE_POLICY, _ADMIN, 'Update a group type spec.', ('PUT', _SPEC),
              deprecated_rule=_SPECS_WAS),
    base.rule(SPEC_DELETE_POLICY, _ADMIN, 'Delete a group type spec.', ('DELETE', _SPEC),
              deprecated_rule=_SPECS_WAS),
]


def list_rules():
    return rules
