"""Policy defaults of volume type encryption (Cinder's names): admins only.

Each rule's deprecated form is the old umbrella rule `volume_extension:volume_type_encryption`,
which Cinder still registers (admin only) so that rule keeps working.
"""

from oslo_policy import policy

from cinderlike.policies import base

ENCRYPTION_POLICY = 'volume_extension:volume_type_encryption'
CREATE_POLICY = 'volume_extension:volume_type_encryption:create'
GET_POLICY = 'volume_extension:volume_type_encryption:get'
UPDATE_POLICY = 'volume_extension:volume_type_encryption:update'
DELETE_POLICY = 'volume_extension:volume_type_encryption:delete'

_REASON = (f"Reason: '{ENCRYPTION_POLICY}' was a convenience policy that allowed you to set "
           'all volume encryption type policies to the same value.  We are deprecating this '
           'rule to prepare for a future release in which the default values for policies '
           'that read, create/update, and delete encryption types will be different from '
           'each other.')
_SPECS = '/types/{type_id}/encryption'
_ITEM = _SPECS + '/{encryption_id}'


def _was_umbrella(name: str) -> policy.DeprecatedRule:
    return base.deprecated(name, f'rule:{ENCRYPTION_POLICY}', reason=_REASON)


rules = [
    policy.RuleDefault(ENCRYPTION_POLICY, base.RULE_ADMIN_API,
                       description='DEPRECATED: This rule will be removed in the Yoga release.'),
    base.rule(CREATE_POLICY, base.RULE_ADMIN_API, 'Create volume type encryption.',
              ('POST', _SPECS), deprecated_rule=_was_umbrella(CREATE_POLICY)),
    base.rule(GET_POLICY, base.RULE_ADMIN_API,
              "Show a volume type's encryption type, show an encryption specs item.",
              ('GET', _SPECS), ('GET', _SPECS + '/{key}'),
              deprecated_rule=_was_umbrella(GET_POLICY)),
    base.rule(UPDATE_POLICY, base.RULE_ADMIN_API, 'Update volume type encryption.',
              ('PUT', _ITEM), deprecated_rule=_was_umbrella(UPDATE_POLICY)),
    base.rule(DELETE_POLICY, base.RULE_ADMIN_API, 'Delete volume type encryption.',
              ('DELETE', _ITEM), deprecated_rule=_was_umbrella(DELETE_POLICY)),
]


def list_rules():
    return rules
