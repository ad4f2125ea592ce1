"""Policy defaults of the clusters API (3.7): listing and updating clusters is for admins."""

from oslo_policy import policy

from cinderlike.policies import base

GET_ALL_POLICY = 'clusters:get_all'
GET_POLICY = 'clusters:get'
UPDATE_POLICY = 'clusters:update'

rules = [
    policy.DocumentedRuleDefault(
        name=GET_ALL_POLICY, check_str=base.RULE_ADMIN_API,
        description='List clusters.',
        operations=[{'method': 'GET', 'path': '/clusters'},
                    {'method': 'GET', 'path': '/clusters/detail'}]),
    policy.DocumentedRuleDefault(
        name=GET_POLICY, check_str=base.RULE_ADMIN_API,
        description='Show cluster.',
        operations=[{'method': 'GET', 'path': '/clusters/{cluster_id}'}]),
    policy.DocumentedRuleDefault(
        name=UPDATE_POLICY, check_str=base.RULE_ADMIN_API,
        description='Update cluster: enable or disable it.',
        operations=[{'method': 'PUT', 'path': '/clusters/{cluster_id}'}]),
]


def list_rules():
    return rules
