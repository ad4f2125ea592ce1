"""Policy defaults of /limits: everyone sees the limits, readers also see what is used."""

from cinderlike.policies import base

EXTEND_LIMIT_ATTRIBUTE_POLICY = 'limits_extension:used_limits'

rules = [
    base.rule(EXTEND_LIMIT_ATTRIBUTE_POLICY, base.SYSTEM_ADMIN_OR_PROJECT_READER,
              'Show limits with used limit attributes.', ('GET', '/limits'),
              deprecated_rule=base.deprecated(EXTEND_LIMIT_ATTRIBUTE_POLICY)),
]


def list_rules():
    return rules
