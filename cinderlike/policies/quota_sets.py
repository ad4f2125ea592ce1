"""Policy defaults of os-quota-sets: a project's readers see its quotas, admins change them."""

from cinderlike.policies import base

SHOW_POLICY = 'volume_extension:quotas:show'
UPDATE_POLICY = 'volume_extension:quotas:update'
DELETE_POLICY = 'volume_extension:quotas:delete'

_ITEM = '/os-quota-sets/{project_id}'

rules = [
    # NOTE(no-reason): Cinder gives this deprecated rule neither a reason nor a release.
    base.rule(SHOW_POLICY, base.SYSTEM_ADMIN_OR_PROJECT_READER,
              'Show project quota (including usage and default).',
              ('GET', _ITEM), ('GET', _ITEM + '/default'), ('GET', _ITEM + '?usage=True'),
              deprecated_rule=base.deprecated(SHOW_POLICY, reason=None, since=None)),
    base.rule(UPDATE_POLICY, base.RULE_ADMIN_API, 'Update project quota.', ('PUT', _ITEM)),
    base.rule(DELETE_POLICY, base.RULE_ADMIN_API, 'Delete project quota.', ('DELETE', _ITEM)),
]


def list_rules():
    return rules
