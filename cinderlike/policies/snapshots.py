"""Policy defaults of snapshots, their metadata and the snapshot actions (Cinder's names).

Readers list and show, members create, change and delete their project's snapshots and
report a snapshot's status (Nova's assisted snapshots), admins reset and force-delete.
"""

from cinderlike.policies import base

GET_POLICY = 'volume:get_snapshot'
GET_ALL_POLICY = 'volume:get_all_snapshots'
CREATE_POLICY = 'volume:create_snapshot'
UPDATE_POLICY = 'volume:update_snapshot'
DELETE_POLICY = 'volume:delete_snapshot'
EXTEND_ATTRIBUTE = 'volume_extension:extended_snapshot_attributes'

GET_METADATA_POLICY = 'volume:get_snapshot_metadata'
UPDATE_METADATA_POLICY = 'volume:update_snapshot_metadata'
DELETE_METADATA_POLICY = 'volume:delete_snapshot_metadata'

RESET_STATUS_POLICY = 'volume_extension:snapshot_admin_actions:reset_status'
FORCE_DELETE_POLICY = 'volume_extension:snapshot_admin_actions:force_delete'
UPDATE_STATUS_POLICY = 'snapshot_extension:snapshot_actions:update_snapshot_status'

_READER = base.SYSTEM_ADMIN_OR_PROJECT_READER
_MEMBER = base.SYSTEM_ADMIN_OR_PROJECT_MEMBER
_ADMIN = base.RULE_ADMIN_API

_ITEM = '/snapshots/{snapshot_id}'
_META = _ITEM + '/metadata'
_ACTION = _ITEM + '/action'


rules = [
    base.owned(GET_METADATA_POLICY, _READER,
               "Show snapshot's metadata or one specified metadata with a given key.",
               ('GET', _META), ('GET', _META + '/{key}')),
    base.owned(UPDATE_METADATA_POLICY, _MEMBER,
               "Update snapshot's metadata or one specified metadata with a given key.",
               ('POST', _META), ('PUT', _META + '/{key}')),
    base.owned(DELETE_METADATA_POLICY, _MEMBER,
               "Delete snapshot's specified metadata with a given key.",
               ('DELETE', _META + '/{key}')),
    base.owned(GET_ALL_POLICY, _READER, 'List snapshots.',
               ('GET', '/snapshots'), ('GET', '/snapshots/detail')),
    base.owned(EXTEND_ATTRIBUTE, _READER, 'List or show snapshots with extended attributes.',
               ('GET', _ITEM), ('GET', '/snapshots/detail')),
    base.owned(CREATE_POLICY, _MEMBER, 'Create snapshot.', ('POST', '/snapshots')),
    base.owned(GET_POLICY, _READER, 'Show snapshot.', ('GET', _ITEM)),
    base.owned(UPDATE_POLICY, _MEMBER, 'Update snapshot.', ('PUT', _ITEM)),
    base.owned(DELETE_POLICY, _MEMBER, 'Delete snapshot.', ('DELETE', _ITEM)),
    base.rule(RESET_STATUS_POLICY, _ADMIN, 'Reset status of a snapshot.',
              ('POST', _ACTION + ' (os-reset_status)')),
    base.owned(UPDATE_STATUS_POLICY, _MEMBER, 'Update database fields of snapshot.',
               ('POST', _ACTION + ' (update_snapshot_status)'), was=''),
    base.rule(FORCE_DELETE_POLICY, _ADMIN, 'Force delete a snapshot.',
              ('POST', _ACTION + ' (os-force_delete)')),
]


def list_rules():
    return rules
