"""Policy defaults of os-quota-class-sets: quota classes are for admins only."""

from cinderlike.policies import base

GET_POLICY = 'volume_extension:quota_classes:get'
UPDATE_POLICY = 'volume_extension:quota_classes:update'

_REPLACED = base.replaced('volume_extension:quota_classes', 'GET and PUT')

rules = [
    base.rule(GET_POLICY, base.RULE_ADMIN_API, 'Show project quota class.',
              ('GET', '/os-quota-class-sets/{project_id}'), deprecated_rule=_REPLACED),
    base.rule(UPDATE_POLICY, base.RULE_ADMIN_API, 'Update project quota class.',
              ('PUT', '/os-quota-class-sets/{project_id}'), deprecated_rule=_REPLACED),
]


def list_rules():
    return rules
