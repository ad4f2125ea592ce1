"""Policy defaults of user messages (3.3): readers list and show, members delete."""

from oslo_policy import policy

from cinderlike.policies import base

GET_ALL_POLICY = 'message:get_all'
GET_POLICY = 'message:get'
DELETE_POLICY = 'message:delete'

rules = [
    policy.DocumentedRuleDefault(
        name=GET_ALL_POLICY, check_str=base.SYSTEM_ADMIN_OR_PROJECT_READER,
        description='List messages.',
        operations=[{'method': 'GET', 'path': '/messages'}]),
    policy.DocumentedRuleDefault(
        name=GET_POLICY, check_str=base.SYSTEM_ADMIN_OR_PROJECT_READER,
        description='Show message.',
        operations=[{'method': 'GET', 'path': '/messages/{message_id}'}]),
    policy.DocumentedRuleDefault(
        name=DELETE_POLICY, check_str=base.SYSTEM_ADMIN_OR_PROJECT_MEMBER,
        description='Delete message.',
        operations=[{'method': 'DELETE', 'path': '/messages/{message_id}'}]),
]


def list_rules():
    return rules
