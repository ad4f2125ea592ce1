"""Policy defaults of group snapshots and their reset_status action (Cinder's
group_snapshots.py and group_snapshot_actions.py)."""

from cinderlike.policies import base

CREATE_POLICY = 'group:create_group_snapshot'
DELETE_POLICY = 'group:delete_group_snapshot'
GET_POLICY = 'group:get_group_snapshot'
GET_ALL_POLICY = 'group:get_all_group_snapshots'
GROUP_SNAPSHOT_ATTRIBUTES_POLICY = 'group:group_snapshot_project_attribute'
RESET_STATUS = 'group:reset_group_snapshot_status'

_READER = base.SYSTEM_ADMIN_OR_PROJECT_READER
_MEMBER = base.SYSTEM_ADMIN_OR_PROJECT_MEMBER
_ONE = '/group_snapshots/{group_snapshot_id}'

rules = [
    base.owned(GET_ALL_POLICY, _READER, 'List group snapshots.', ('GET', '/group_snapshots'),
               ('GET', '/group_snapshots/detail')),
    base.owned(CREATE_POLICY, _MEMBER, 'Create group snapshot.', ('POST', '/group_snapshots')),
    base.owned(GET_POLICY, _READER, 'Show group snapshot.', ('GET', _ONE)),
    base.owned(DELETE_POLICY, _MEMBER, 'Delete group snapshot.', ('DELETE', _ONE)),
    base.rule(GROUP_SNAPSHOT_ATTRIBUTES_POLICY, base.RULE_ADMIN_API,
              'List group snapshots or show group snapshot with project attributes.',
              ('GET', _ONE), ('GET', '/group_snapshots/detail')),
    base.rule(RESET_STATUS, base.RULE_ADMIN_API, 'Reset status of group snapshot.',
              ('POST', _ONE + '/action (reset_status)')),
]


def list_rules():
    return rules
