"""Policy defaults of os-services: listing, updating, freezing, thawing and failing over
services is for admins only."""

from cinderlike.policies import base

GET_ALL_POLICY = 'volume_extension:services:index'
UPDATE_POLICY = 'volume_extension:services:update'
FAILOVER_POLICY = 'volume:failover_host'
FREEZE_POLICY = 'volume:freeze_host'
THAW_POLICY = 'volume:thaw_host'

rules = [
    base.rule(GET_ALL_POLICY, base.RULE_ADMIN_API, 'List all services.', ('GET', '/os-services')),
    base.rule(UPDATE_POLICY, base.RULE_ADMIN_API,
              'Update service, including failover_host, thaw, freeze, disable, enable, set-log '
              'and get-log actions.', ('PUT', '/os-services/{action}')),
    base.rule(FREEZE_POLICY, base.RULE_ADMIN_API, 'Freeze a backend host.',
              ('PUT', '/os-services/freeze')),
    base.rule(THAW_POLICY, base.RULE_ADMIN_API, 'Thaw a backend host.',
              ('PUT', '/os-services/thaw')),
    base.rule(FAILOVER_POLICY, base.RULE_ADMIN_API, 'Failover a backend host.',
              ('PUT', '/os-services/failover_host')),
]


def list_rules():
    return rules
