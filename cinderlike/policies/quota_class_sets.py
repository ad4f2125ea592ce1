"""Policy defaults of os-quota-class-sets: quota classes are for admins only."""

from oslo_policy import policy

from cinderlike.policies import base

GET_POLICY = 'volume_extension:quota_classes'
UPDATE_POLICY = 'volume_extension:quota_classes:update'

rules = [
    policy.DocumentedRuleDefault(
        name=GET_POLICY, check_str=base.RULE_ADMIN_API,
        description='Show project quota class.',
        operations=[{'method': 'GET', 'path': '/os-quota-class-sets/{project_id}'}]),
    policy.DocumentedRuleDefault(
        name=UPDATE_POLICY, check_str=base.RULE_ADMIN_API,
        description='Update project quota class.',
        operations=[{'method': 'PUT', 'path': '/os-quota-class-sets/{project_id}'}]),
]


def list_rules():
    return rules
