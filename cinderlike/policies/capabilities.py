"""Policy defaults of capabilities: a backend's capabilities are for admins only."""

from oslo_policy import policy

from cinderlike.policies import base

CAPABILITIES_POLICY = 'volume_extension:capabilities'

rules = [
    policy.DocumentedRuleDefault(
        name=CAPABILITIES_POLICY, check_str=base.RULE_ADMIN_API,
        description='Show backend capabilities.',
        operations=[{'method': 'GET', 'path': '/capabilities/{host_name}'}]),
]


def list_rules():
    return rules
