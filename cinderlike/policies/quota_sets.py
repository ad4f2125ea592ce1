"""Policy defaults of os-quota-sets: a project's readers see its quotas, admins change them."""

from oslo_policy import policy

from cinderlike.policies import base

SHOW_POLICY = 'volume_extension:quotas:show'
UPDATE_POLICY = 'volume_extension:quotas:update'
DELETE_POLICY = 'volume_extension:quotas:delete'

rules = [
    policy.DocumentedRuleDefault(
        name=SHOW_POLICY, check_str=base.SYSTEM_ADMIN_OR_PROJECT_READER,
        description='Show project quota (including usage and default).',
        operations=[{'method': 'GET', 'path': '/os-quota-sets/{project_id}'},
                    {'method': 'GET', 'path': '/os-quota-sets/{project_id}/defaults'},
                    {'method': 'GET', 'path': '/os-quota-sets/{project_id}?usage=True'}]),
    policy.DocumentedRuleDefault(
        name=UPDATE_POLICY, check_str=base.RULE_ADMIN_API,
        description='Update project quota.',
        operations=[{'method': 'PUT', 'path': '/os-quota-sets/{project_id}'}]),
    policy.DocumentedRuleDefault(
        name=DELETE_POLICY, check_str=base.RULE_ADMIN_API,
        description='Delete project quota.',
        operations=[{'method': 'DELETE', 'path': '/os-quota-sets/{project_id}'}]),
]


def list_rules():
    return rules
