"""Policy defaults of QoS specs: Cinder's names, every rule admin-only."""

from oslo_policy import policy

from cinderlike.policies import base

CREATE_POLICY = 'volume_extension:qos_specs_manage:create'
GET_POLICY = 'volume_extension:qos_specs_manage:get'
GET_ALL_POLICY = 'volume_extension:qos_specs_manage:get_all'
UPDATE_POLICY = 'volume_extension:qos_specs_manage:update'
DELETE_POLICY = 'volume_extension:qos_specs_manage:delete'

_ITEM = '/qos-specs/{qos_id}'


def _rule(name, description, *operations):
    return policy.DocumentedRuleDefault(
        name=name, check_str=base.RULE_ADMIN_API, description=description,
        operations=[{'method': method, 'path': path} for method, path in operations])


rules = [
    _rule(GET_ALL_POLICY, 'List qos specs or list all associations.',
          ('GET', '/qos-specs'), ('GET', f'{_ITEM}/associations')),
    _rule(GET_POLICY, 'Show qos specs.', ('GET', _ITEM)),
    _rule(CREATE_POLICY, 'Create qos specs.', ('POST', '/qos-specs')),
    _rule(UPDATE_POLICY, 'Update qos specs (including updating association).',
          ('PUT', _ITEM), ('GET', f'{_ITEM}/disassociate_all'), ('GET', f'{_ITEM}/associate'),
          ('GET', f'{_ITEM}/disassociate')),
    _rule(DELETE_POLICY, 'delete qos specs or unset one specified qos key.',
          ('DELETE', _ITEM), ('PUT', f'{_ITEM}/delete_keys')),
]


def list_rules():
    return rules
