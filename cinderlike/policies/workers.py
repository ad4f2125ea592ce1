"""Policy default of the workers API: cleaning up a service's operations is for admins."""

from cinderlike.policies import base

CLEAN_POLICY = 'workers:cleanup'

rules = [
    base.rule(CLEAN_POLICY, base.RULE_ADMIN_API, 'Clean up workers.',
              ('POST', '/workers/cleanup')),
]


def list_rules():
    return rules
