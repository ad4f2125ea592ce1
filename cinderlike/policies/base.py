"""Policy defaults shared by every API resource: Cinder's base rules, personas and deprecations.

Cinder 29 still ships its Xena personas: `role:admin` on any project is the cloud admin,
`reader` and `member` act on their own project only. Each per-project rule keeps Cinder's
deprecated (Wallaby) check string, which oslo.policy ORs in only when an operator sets
`[oslo_policy] enforce_new_defaults = False`.
"""

from oslo_log import versionutils
from oslo_policy import policy

from cinderlike.policies import plugin_checks

# NOTE(order): before the first RuleDefault below, which is the first rule parsed.
plugin_checks.defer()

RULE_ADMIN_API = 'rule:admin_api'
RULE_CONTEXT_IS_ADMIN = 'rule:context_is_admin'
RULE_ADMIN_OR_OWNER = 'rule:admin_or_owner'
RULE_SYSTEM_OR_DOMAIN_OR_PROJECT_ADMIN = 'rule:system_or_domain_or_project_admin'
# The personas: an admin anywhere, or the given role on the target's project.
SYSTEM_ADMIN_OR_PROJECT_READER = 'rule:xena_system_admin_or_project_reader'
SYSTEM_ADMIN_OR_PROJECT_MEMBER = 'rule:xena_system_admin_or_project_member'
SYSTEM_ADMIN = 'role:admin and system_scope:all'

_PROJECT_READER = 'role:reader and project_id:%(project_id)s'
_PROJECT_MEMBER = 'role:member and project_id:%(project_id)s'

DEPRECATED_REASON = (
    'Default policies now support the three Keystone default roles, namely '
    "'admin', 'member', and 'reader' to implement three Cinder "
    '"personas".  See "Policy Personas and Permissions" in the "Cinder '
    'Service Configuration" documentation (Xena release) for details.')
DEPRECATED_SINCE = versionutils.deprecated.XENA

_YOGA_REMOVAL = 'DEPRECATED: This rule will be removed in the Yoga release.'
_PADDING = ' ' * (70 - len(_YOGA_REMOVAL))

rules = [
    policy.RuleDefault(
        'admin_or_owner',
        'is_admin:True or (role:admin and is_admin_project:True) or project_id:%(project_id)s',
        description=f'{_YOGA_REMOVAL}{_PADDING}Default rule for most non-Admin APIs.'),
    policy.RuleDefault(
        'system_or_domain_or_project_admin',
        '(role:admin and system_scope:all) or (role:admin and domain_id:%(domain_id)s) or '
        '(role:admin and project_id:%(project_id)s)',
        description=f'{_YOGA_REMOVAL}{_PADDING}Default rule for admins of cloud, domain or '
                    'a project.'),
    policy.RuleDefault(
        'context_is_admin', 'role:admin',
        description="Decides what is required for the 'is_admin:True' check to succeed."),
    policy.RuleDefault(
        'admin_api', 'is_admin:True or (role:admin and is_admin_project:True)',
        description='Default rule for most Admin APIs.'),
    policy.RuleDefault(
        'xena_system_admin_or_project_reader', f'(role:admin) or ({_PROJECT_READER})',
        description='NOTE: this purely role-based rule recognizes only project scope'),
    policy.RuleDefault(
        'xena_system_admin_or_project_member', f'(role:admin) or ({_PROJECT_MEMBER})',
        description='NOTE: this purely role-based rule recognizes only project scope'),
]


def deprecated(name: str, check_str: str = RULE_ADMIN_OR_OWNER, *,
               reason: str | None = DEPRECATED_REASON,
               since: str | None = DEPRECATED_SINCE) -> policy.DeprecatedRule:
    """Cinder's deprecated form of rule *name* (by default its Wallaby `admin_or_owner`)."""
    return policy.DeprecatedRule(name, check_str, deprecated_reason=reason,
                                 deprecated_since=since)


def replaced(old_name: str, operations: str) -> policy.DeprecatedRule:
    """The coarse admin-only rule *old_name* that finer rules replaced (Cinder's wording)."""
    return deprecated(old_name, RULE_ADMIN_API,
                      reason=f'{old_name} has been replaced by more granular policies that '
                             f'separately govern {operations} operations.')


def rule(name: str, check_str: str, description: str, *operations: tuple[str, str],
         deprecated_rule: policy.DeprecatedRule | None = None) -> policy.DocumentedRuleDefault:
    """A documented default; *operations* are (method, path) pairs."""
    return policy.DocumentedRuleDefault(
        name=name, check_str=check_str, description=description,
        operations=[{'method': method, 'path': path} for method, path in operations],
        deprecated_rule=deprecated_rule)


def owned(name: str, check_str: str, description: str, *operations: tuple[str, str],
          was: str = RULE_ADMIN_OR_OWNER) -> policy.DocumentedRuleDefault:
    """A per-project persona rule with Cinder's deprecated form of it (*was*: '' for the
    rules that were open to everyone)."""
    return rule(name, check_str, description, *operations,
                deprecated_rule=deprecated(name, was))


def list_rules():
    return rules
