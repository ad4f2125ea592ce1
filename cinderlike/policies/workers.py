"""Policy default of the workers API: cleaning up a service's operations is for admins."""

from oslo_policy import policy

from cinderlike.policies import base

CLEAN_POLICY = 'workers:cleanup'

rules = [
    policy.DocumentedRuleDefault(
        name=CLEAN_POLICY, check_str=base.RULE_ADMIN_API,
        description='Clean up workers.',
        operations=[{'method': 'POST', 'path': '/workers/cleanup'}]),
]


def list_rules():
    return rules
