"""Policy defaults of capabilities: a backend's capabilities are for admins only."""

from cinderlike.policies import base

CAPABILITIES_POLICY = 'volume_extension:capabilities'

rules = [
    base.rule(CAPABILITIES_POLICY, base.RULE_ADMIN_API, 'Show backend capabilities.',
              ('GET', '/capabilities/{host_name}')),
]


def list_rules():
    return rules
