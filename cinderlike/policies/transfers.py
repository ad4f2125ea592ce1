"""Policy defaults of volume transfers: readers list and show, members create, accept, delete."""

from oslo_policy import policy

from cinderlike.policies import base

CREATE_POLICY = 'volume:create_transfer'
ACCEPT_POLICY = 'volume:accept_transfer'
DELETE_POLICY = 'volume:delete_transfer'
GET_POLICY = 'volume:get_transfer'
GET_ALL_POLICY = 'volume:get_all_transfers'

rules = [
    policy.DocumentedRuleDefault(
        name=GET_ALL_POLICY, check_str=base.SYSTEM_ADMIN_OR_PROJECT_READER,
        description='List volume transfer.',
        operations=[{'method': 'GET', 'path': '/os-volume-transfer'},
                    {'method': 'GET', 'path': '/os-volume-transfer/detail'},
                    {'method': 'GET', 'path': '/volume_transfers'},
                    {'method': 'GET', 'path': '/volume-transfers/detail'}]),
    policy.DocumentedRuleDefault(
        name=CREATE_POLICY, check_str=base.SYSTEM_ADMIN_OR_PROJECT_MEMBER,
        description='Create a volume transfer.',
        operations=[{'method': 'POST', 'path': '/os-volume-transfer'},
                    {'method': 'POST', 'path': '/volume_transfers'}]),
    policy.DocumentedRuleDefault(
        name=GET_POLICY, check_str=base.SYSTEM_ADMIN_OR_PROJECT_READER,
        description='Show one specified volume transfer.',
        operations=[{'method': 'GET', 'path': '/os-volume-transfer/{transfer_id}'},
                    {'method': 'GET', 'path': '/volume-transfers/{transfer_id}'}]),
    policy.DocumentedRuleDefault(
        name=ACCEPT_POLICY, check_str=base.SYSTEM_ADMIN_OR_PROJECT_MEMBER,
        description='Accept a volume transfer.',
        operations=[{'method': 'POST', 'path': '/os-volume-transfer/{transfer_id}/accept'},
                    {'method': 'POST', 'path': '/volume-transfers/{transfer_id}/accept'}]),
    policy.DocumentedRuleDefault(
        name=DELETE_POLICY, check_str=base.SYSTEM_ADMIN_OR_PROJECT_MEMBER,
        description='Delete volume transfer.',
        operations=[{'method': 'DELETE', 'path': '/os-volume-transfer/{transfer_id}'},
                    {'method': 'DELETE', 'path': '/volume-transfers/{transfer_id}'}]),
]


def list_rules():
    return rules
