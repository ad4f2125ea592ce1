"""Policy defaults of scheduler-stats: the scheduler's pool list is for admins only."""

from oslo_policy import policy

from cinderlike.policies import base

GET_POOL_POLICY = 'scheduler_extension:scheduler_stats:get_pools'

rules = [
    policy.DocumentedRuleDefault(
        name=GET_POOL_POLICY, check_str=base.RULE_ADMIN_API,
        description='List all backend pools known to the scheduler.',
        operations=[{'method': 'GET', 'path': '/scheduler-stats/get_pools'}]),
]


def list_rules():
    return rules
