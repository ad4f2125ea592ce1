"""Policy default of os-hosts (Cinder's name): admins only."""

from cinderlike.policies import base

MANAGE_POLICY = 'volume_extension:hosts'

# NOTE(put): Cinder also lists PUT /os-hosts/{host_name}, which answers 500 there (its
# HostAPI is not implemented) and is not served here.
rules = [
    base.rule(MANAGE_POLICY, base.RULE_ADMIN_API, 'List, update or show hosts for a project.',
              ('GET', '/os-hosts'), ('GET', '/os-hosts/{host_id}')),
]


def list_rules():
    return rules
