"""Policy defaults shared by every API resource: Cinder's base rules and personas."""

from oslo_policy import policy

RULE_ADMIN_API = 'rule:admin_api'
RULE_CONTEXT_IS_ADMIN = 'rule:context_is_admin'
# Xena personas: an admin anywhere, or the given role on the target's project.
SYSTEM_ADMIN_OR_PROJECT_READER = 'rule:xena_system_admin_or_project_reader'
SYSTEM_ADMIN_OR_PROJECT_MEMBER = 'rule:xena_system_admin_or_project_member'

rules = [
    policy.RuleDefault(
        'context_is_admin', 'role:admin',
        description="Decides what is required for the 'is_admin:True' check to succeed."),
    policy.RuleDefault(
        'admin_api', 'is_admin:True or (role:admin and is_admin_project:True)',
        description='Default rule for most Admin APIs.'),
    policy.RuleDefault(
        'xena_system_admin_or_project_reader',
        'rule:context_is_admin or (role:reader and project_id:%(project_id)s)',
        description='Default rule for read-only project APIs.'),
    policy.RuleDefault(
        'xena_system_admin_or_project_member',
        'rule:context_is_admin or (role:member and project_id:%(project_id)s)',
        description='Default rule for project APIs that change resources.'),
]


def list_rules():
    return rules
