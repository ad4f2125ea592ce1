"""Policy defaults of os-services: listing and updating services is for admins only."""

from oslo_policy import policy

from cinderlike.policies import base

GET_ALL_POLICY = 'volume_extension:services:index'
UPDATE_POLICY = 'volume_extension:services:update'
FAILOVER_POLICY = 'volume:failover_host'
FREEZE_POLICY = 'volume:freeze_host'
THAW_POLICY = 'volume:thaw_host'

rules = [
    policy.DocumentedRuleDefault(
        name=GET_ALL_POLICY, check_str=base.RULE_ADMIN_API,
        description='List all services.',
        operations=[{'method': 'GET', 'path': '/os-services'}]),
    policy.DocumentedRuleDefault(
        name=UPDATE_POLICY, check_str=base.RULE_ADMIN_API,
        description='Update service, including failover_host, thaw, freeze, disable, '
                    'enable, set-log and get-log actions.',
        operations=[{'method': 'PUT', 'path': '/os-services/{action}'}]),
    policy.DocumentedRuleDefault(
        name=FREEZE_POLICY, check_str=base.RULE_ADMIN_API,
        description='Freeze a backend host.',
        operations=[{'method': 'PUT', 'path': '/os-services/freeze'}]),
    policy.DocumentedRuleDefault(
        name=THAW_POLICY, check_str=base.RULE_ADMIN_API,
        description='Thaw a backend host.',
        operations=[{'method': 'PUT', 'path': '/os-services/thaw'}]),
    policy.DocumentedRuleDefault(
        name=FAILOVER_POLICY, check_str=base.RULE_ADMIN_API,
        description='Failover a backend host.',
        operations=[{'method': 'PUT', 'path': '/os-services/failover_host'}]),
]


def list_rules():
    return rules
