"""Policy defaults of /limits: everyone sees the limits, readers also see what is used."""

from oslo_policy import policy

from cinderlike.policies import base

EXTEND_LIMIT_ATTRIBUTE_POLICY = 'limits_extension:used_limits'

rules = [
    policy.DocumentedRuleDefault(
        name=EXTEND_LIMIT_ATTRIBUTE_POLICY, check_str=base.SYSTEM_ADMIN_OR_PROJECT_READER,
        description='Show limits with used limit attributes.',
        operations=[{'method': 'GET', 'path': '/limits'}]),
]


def list_rules():
    return rules
