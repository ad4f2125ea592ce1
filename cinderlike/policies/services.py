"""Policy defaults of os-services: listing and updating services is for admins only."""

from oslo_policy import policy

from cinderlike.policies import base

GET_ALL_POLICY = 'volume_extension:services:index'
UPDATE_POLICY = 'volume_extension:services:update'

rules = [
    policy.DocumentedRuleDefault(
        name=GET_ALL_POLICY, check_str=base.RULE_ADMIN_API,
        description='List all services.',
        operations=[{'method': 'GET', 'path': '/os-services'}]),
    policy.DocumentedRuleDefault(
        name=UPDATE_POLICY, check_str=base.RULE_ADMIN_API,
        description='Update service: enable, disable and disable-log-reason.',
        operations=[{'method': 'PUT', 'path': '/os-services/{action}'}]),
]


def list_rules():
    return rules
