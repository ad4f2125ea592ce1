"""Policy defaults of QoS specs: Cinder's names, every rule admin-only."""

from cinderlike.policies import base

CREATE_POLICY = 'volume_extension:qos_specs_manage:create'
GET_POLICY = 'volume_extension:qos_specs_manage:get'
GET_ALL_POLICY = 'volume_extension:qos_specs_manage:get_all'
UPDATE_POLICY = 'volume_extension:qos_specs_manage:update'
DELETE_POLICY = 'volume_extension:qos_specs_manage:delete'

_ADMIN = base.RULE_ADMIN_API
_ITEM = '/qos-specs/{qos_id}'

rules = [
    base.rule(GET_ALL_POLICY, _ADMIN, 'List qos specs or list all associations.',
              ('GET', '/qos-specs'), ('GET', f'{_ITEM}/associations')),
    base.rule(GET_POLICY, _ADMIN, 'Show qos specs.', ('GET', _ITEM)),
    base.rule(CREATE_POLICY, _ADMIN, 'Create qos specs.', ('POST', '/qos-specs')),
    base.rule(UPDATE_POLICY, _ADMIN, 'Update qos specs (including updating association).',
              ('PUT', _ITEM), ('GET', f'{_ITEM}/disassociate_all'),
              ('GET', f'{_ITEM}/associate'), ('GET', f'{_ITEM}/disassociate')),
    base.rule(DELETE_POLICY, _ADMIN, 'delete qos specs or unset one specified qos key.',
              ('DELETE', _ITEM), ('PUT', f'{_ITEM}/delete_keys')),
]


def list_rules():
    return rules
