"""Policy defaults of attachments (3.27; Cinder's names): members manage their project's."""

from oslo_policy import policy

from cinderlike.policies import base

CREATE_POLICY = 'volume:attachment_create'
UPDATE_POLICY = 'volume:attachment_update'
DELETE_POLICY = 'volume:attachment_delete'
COMPLETE_POLICY = 'volume:attachment_complete'
MULTIATTACH_BOOTABLE_VOLUME_POLICY = 'volume:multiattach_bootable_volume'

_MEMBER = base.SYSTEM_ADMIN_OR_PROJECT_MEMBER
_ITEM = '/attachments/{attachment_id}'


def _rule(name, description, method, path):
    return policy.DocumentedRuleDefault(name=name, check_str=_MEMBER, description=description,
                                        operations=[{'method': method, 'path': path}])


rules = [
    _rule(CREATE_POLICY, 'Create attachment.', 'POST', '/attachments'),
    _rule(UPDATE_POLICY, 'Update attachment.', 'PUT', _ITEM),
    _rule(DELETE_POLICY, 'Delete attachment.', 'DELETE', _ITEM),
    _rule(COMPLETE_POLICY, 'Mark a volume attachment process as completed (in-use)',
          'POST', _ITEM + '/action (os-complete)'),
    _rule(MULTIATTACH_BOOTABLE_VOLUME_POLICY, 'Allow multiattach of bootable volumes.',
          'POST', '/attachments'),
]


def list_rules():
    return rules
