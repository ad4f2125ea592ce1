"""Policy defaults of user messages (3.3): readers list and show, members delete."""

from cinderlike.policies import base

GET_ALL_POLICY = 'message:get_all'
GET_POLICY = 'message:get'
DELETE_POLICY = 'message:delete'

rules = [
    base.rule(GET_ALL_POLICY, base.SYSTEM_ADMIN_OR_PROJECT_READER, 'List messages.',
              ('GET', '/messages'), deprecated_rule=base.deprecated(GET_ALL_POLICY)),
    base.rule(GET_POLICY, base.SYSTEM_ADMIN_OR_PROJECT_READER, 'Show message.',
              ('GET', '/messages/{message_id}'), deprecated_rule=base.deprecated(GET_POLICY)),
    base.rule(DELETE_POLICY, base.SYSTEM_ADMIN_OR_PROJECT_MEMBER, 'Delete message.',
              ('DELETE', '/messages/{message_id}'),
              deprecated_rule=base.deprecated(DELETE_POLICY)),
]


def list_rules():
    return rules
