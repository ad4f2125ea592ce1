"""Policy defaults of attachments (3.27; Cinder's names): members manage their project's."""

from cinderlike.policies import base

CREATE_POLICY = 'volume:attachment_create'
UPDATE_POLICY = 'volume:attachment_update'
DELETE_POLICY = 'volume:attachment_delete'
COMPLETE_POLICY = 'volume:attachment_complete'
MULTIATTACH_BOOTABLE_VOLUME_POLICY = 'volume:multiattach_bootable_volume'

_MEMBER = base.SYSTEM_ADMIN_OR_PROJECT_MEMBER
_ITEM = '/attachments/{attachment_id}'

rules = [
    base.rule(CREATE_POLICY, _MEMBER, 'Create attachment.', ('POST', '/attachments'),
              deprecated_rule=base.deprecated(CREATE_POLICY, '')),
    base.rule(UPDATE_POLICY, _MEMBER, 'Update attachment.', ('PUT', _ITEM),
              deprecated_rule=base.deprecated(UPDATE_POLICY)),
    base.rule(DELETE_POLICY, _MEMBER, 'Delete attachment.', ('DELETE', _ITEM),
              deprecated_rule=base.deprecated(DELETE_POLICY)),
    base.rule(COMPLETE_POLICY, _MEMBER, 'Mark a volume attachment process as completed (in-use)',
              ('POST', _ITEM + '/action (os-complete)'),
              deprecated_rule=base.deprecated(COMPLETE_POLICY)),
    base.rule(MULTIATTACH_BOOTABLE_VOLUME_POLICY, _MEMBER,
              'Allow multiattach of bootable volumes.', ('POST', '/attachments'),
              deprecated_rule=base.deprecated(MULTIATTACH_BOOTABLE_VOLUME_POLICY)),
]


def list_rules():
    return rules
