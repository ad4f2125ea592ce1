"""Policy defaults of scheduler-stats: the scheduler's pool list is for admins only."""

from cinderlike.policies import base

GET_POOL_POLICY = 'scheduler_extension:scheduler_stats:get_pools'

rules = [
    base.rule(GET_POOL_POLICY, base.RULE_ADMIN_API, 'List all backend pools.',
              ('GET', '/scheduler-stats/get_pools')),
]


def list_rules():
    return rules
