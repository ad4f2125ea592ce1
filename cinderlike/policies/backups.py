"""Policy defaults of backups and the backup admin actions (Cinder's names).

Readers list and show, members create, change, delete and restore their project's backups,
admins see the project attribute, reset, force-delete, export and import records.
"""

from oslo_policy import policy

from cinderlike.policies import base

GET_ALL_POLICY = 'backup:get_all'
GET_POLICY = 'backup:get'
CREATE_POLICY = 'backup:create'
UPDATE_POLICY = 'backup:update'
DELETE_POLICY = 'backup:delete'
RESTORE_POLICY = 'backup:restore'
IMPORT_POLICY = 'backup:backup-import'
EXPORT_POLICY = 'backup:export-import'
BACKUP_ATTRIBUTES_POLICY = 'backup:backup_project_attribute'

RESET_STATUS_POLICY = 'volume_extension:backup_admin_actions:reset_status'
FORCE_DELETE_POLICY = 'volume_extension:backup_admin_actions:force_delete'

_READER = base.SYSTEM_ADMIN_OR_PROJECT_READER
_MEMBER = base.SYSTEM_ADMIN_OR_PROJECT_MEMBER
_ADMIN = base.RULE_ADMIN_API

_ITEM = '/backups/{backup_id}'
_ACTION = _ITEM + '/action'


def _rule(name, check_str, description, *operations):
    return policy.DocumentedRuleDefault(
        name=name, check_str=check_str, description=description,
        operations=[{'method': method, 'path': path} for method, path in operations])


rules = [
    _rule(GET_ALL_POLICY, _READER, 'List backups.',
          ('GET', '/backups'), ('GET', '/backups/detail')),
    _rule(BACKUP_ATTRIBUTES_POLICY, _ADMIN,
          'List backups or show backup with project attributes.',
          ('GET', _ITEM), ('GET', '/backups/detail')),
    _rule(CREATE_POLICY, _MEMBER, 'Create backup.', ('POST', '/backups')),
    _rule(GET_POLICY, _READER, 'Show backup.', ('GET', _ITEM)),
    _rule(UPDATE_POLICY, _MEMBER, 'Update backup.', ('PUT', _ITEM)),
    _rule(DELETE_POLICY, _MEMBER, 'Delete backup.', ('DELETE', _ITEM)),
    _rule(RESTORE_POLICY, _MEMBER, 'Restore backup.', ('POST', _ITEM + '/restore')),
    _rule(IMPORT_POLICY, _ADMIN, 'Import backup.', ('POST', _ITEM + '/import_record')),
    _rule(EXPORT_POLICY, _ADMIN, 'Export backup.', ('POST', _ITEM + '/export_record')),
    _rule(RESET_STATUS_POLICY, _ADMIN, 'Reset status of a backup.',
          ('POST', _ACTION + ' (os-reset_status)')),
    _rule(FORCE_DELETE_POLICY, _ADMIN, 'Force delete a backup.',
          ('POST', _ACTION + ' (os-force_delete)')),
]


def list_rules():
    return rules
