"""Policy defaults of os-services: listing and updating services is for admins only.

freeze, thaw and failover_host are not served, so their rules are not registered.
"""

from cinderlike.policies import base

GET_ALL_POLICY = 'volume_extension:services:index'
UPDATE_POLICY = 'volume_extension:services:update'

rules = [
    base.rule(GET_ALL_POLICY, base.RULE_ADMIN_API, 'List all services.', ('GET', '/os-services')),
    base.rule(UPDATE_POLICY, base.RULE_ADMIN_API,
              'Update service, including failover_host, thaw, freeze, disable, enable, set-log '
              'and get-log actions.', ('PUT', '/os-services/{action}')),
]


def list_rules():
    return rules
