"""Policy defaults of volume transfers: readers list and show, members create, accept, delete."""

from cinderlike.policies import base

CREATE_POLICY = 'volume:create_transfer'
ACCEPT_POLICY = 'volume:accept_transfer'
DELETE_POLICY = 'volume:delete_transfer'
GET_POLICY = 'volume:get_transfer'
GET_ALL_POLICY = 'volume:get_all_transfers'

_READER = base.SYSTEM_ADMIN_OR_PROJECT_READER
_MEMBER = base.SYSTEM_ADMIN_OR_PROJECT_MEMBER
_LEGACY = '/os-volume-transfer'
_V3 = '/volume-transfers'

rules = [
    # NOTE(paths): '/volume_transfers' (underscore) as Cinder's own operations list it.
    base.rule(GET_ALL_POLICY, _READER, 'List volume transfer.',
              ('GET', _LEGACY), ('GET', _LEGACY + '/detail'), ('GET', '/volume_transfers'),
              ('GET', _V3 + '/detail'), deprecated_rule=base.deprecated(GET_ALL_POLICY)),
    base.rule(CREATE_POLICY, _MEMBER, 'Create a volume transfer.',
              ('POST', _LEGACY), ('POST', '/volume_transfers'),
              deprecated_rule=base.deprecated(CREATE_POLICY)),
    base.rule(GET_POLICY, _READER, 'Show one specified volume transfer.',
              ('GET', _LEGACY + '/{transfer_id}'), ('GET', _V3 + '/{transfer_id}'),
              deprecated_rule=base.deprecated(GET_POLICY)),
    base.rule(ACCEPT_POLICY, _MEMBER, 'Accept a volume transfer.',
              ('POST', _LEGACY + '/{transfer_id}/accept'),
              ('POST', _V3 + '/{transfer_id}/accept'),
              deprecated_rule=base.deprecated(ACCEPT_POLICY, '')),
    base.rule(DELETE_POLICY, _MEMBER, 'Delete volume transfer.',
              ('DELETE', _LEGACY + '/{transfer_id}'), ('DELETE', _V3 + '/{transfer_id}'),
              deprecated_rule=base.deprecated(DELETE_POLICY)),
]


def list_rules():
    return rules
