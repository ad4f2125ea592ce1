"""Policy defaults of the clusters API (3.7): listing and updating clusters is for admins."""

from cinderlike.policies import base

GET_ALL_POLICY = 'clusters:get_all'
GET_POLICY = 'clusters:get'
UPDATE_POLICY = 'clusters:update'

rules = [
    base.rule(GET_ALL_POLICY, base.RULE_ADMIN_API, 'List clusters.',
              ('GET', '/clusters'), ('GET', '/clusters/detail')),
    base.rule(GET_POLICY, base.RULE_ADMIN_API, 'Show cluster.', ('GET', '/clusters/{cluster_id}')),
    base.rule(UPDATE_POLICY, base.RULE_ADMIN_API, 'Update cluster.',
              ('PUT', '/clusters/{cluster_id}')),
]


def list_rules():
    return rules
