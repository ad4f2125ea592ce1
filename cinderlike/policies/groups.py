"""Policy defaults of generic volume groups and their actions (Cinder's groups.py and
group_actions.py): readers list and show, members create and delete, admins reset."""

from cinderlike.policies import base

CREATE_POLICY = 'group:create'
GET_POLICY = 'group:get'
GET_ALL_POLICY = 'group:get_all'
UPDATE_POLICY = 'group:update'
GROUP_ATTRIBUTES_POLICY = 'group:group_project_attribute'
DELETE_POLICY = 'group:delete'
RESET_STATUS = 'group:reset_status'
ENABLE_REP = 'group:enable_replication'
DISABLE_REP = 'group:disable_replication'
FAILOVER_REP = 'group:failover_replication'
LIST_REP = 'group:list_replication_targets'
REPLICATION_POLICIES = {'enable_replication': ENABLE_REP, 'disable_replication': DISABLE_REP,
                        'failover_replication': FAILOVER_REP,
                        'list_replication_targets': LIST_REP}

_READER = base.SYSTEM_ADMIN_OR_PROJECT_READER
_MEMBER = base.SYSTEM_ADMIN_OR_PROJECT_MEMBER
_ACTION = '/groups/{group_id}/action'

rules = [
    base.owned(GET_ALL_POLICY, _READER, 'List groups.', ('GET', '/groups'),
               ('GET', '/groups/detail')),
    base.owned(CREATE_POLICY, _MEMBER, 'Create group.', ('POST', '/groups'), was=''),
    base.owned(GET_POLICY, _READER, 'Show group.', ('GET', '/groups/{group_id}')),
    base.owned(UPDATE_POLICY, _MEMBER, 'Update group.', ('PUT', '/groups/{group_id}')),
    base.rule(GROUP_ATTRIBUTES_POLICY, base.RULE_ADMIN_API,
              'List groups or show group with project attributes.',
              ('GET', '/groups/{group_id}'), ('GET', '/groups/detail')),
    base.owned(DELETE_POLICY, _MEMBER, 'Delete group.', ('POST', _ACTION + ' (delete)')),
    base.rule(RESET_STATUS, base.RULE_ADMIN_API, 'Reset status of group.',
              ('POST', _ACTION + ' (reset_status)')),
    base.owned(ENABLE_REP, _MEMBER, 'Enable replication.',
               ('POST', _ACTION + ' (enable_replication)')),
    base.owned(DISABLE_REP, _MEMBER, 'Disable replication.',
               ('POST', _ACTION + ' (disable_replication)')),
    base.owned(FAILOVER_REP, _MEMBER, 'Fail over replication.',
               ('POST', _ACTION + ' (failover_replication)')),
    base.owned(LIST_REP, _MEMBER, 'List failover replication.',
               ('POST', _ACTION + ' (list_replication_targets)')),
]


def list_rules():
    return rules
