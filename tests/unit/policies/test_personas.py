"""Every registered rule belongs to one of Cinder's personas, and oslo.policy enforces it so:
readers read their project, members change it, admins (any project's `admin`) do anything."""

import pytest

from cinderlike import context, exception
from cinderlike.policies import base, list_rules
from cinderlike.policies import enforcer as enforcer_module

# NOTE(table): a rule added to cinderlike/policies/ must be added here, under its persona.
READER = (
    'volume:get', 'volume:get_all', 'volume_extension:volume_tenant_attribute',
    'volume:get_volume_metadata', 'volume:get_snapshot', 'volume:get_all_snapshots',
    'volume_extension:extended_snapshot_attributes', 'volume:get_snapshot_metadata',
    'volume_extension:type_get', 'volume_extension:type_get_all',
    'volume_extension:access_types_extra_specs', 'volume_extension:types_extra_specs:index',
    'volume_extension:types_extra_specs:show', 'message:get', 'message:get_all',
    'volume:get_transfer', 'volume:get_all_transfers', 'volume_extension:quotas:show',
    'limits_extension:used_limits', 'backup:get_all', 'backup:get',
    'volume_extension:volume_encryption_metadata', 'group:get_all',
    'group:get', 'group:get_all_group_snapshots', 'group:get_group_snapshot',
)
MEMBER = (
    'volume:create', 'volume:create_from_image', 'volume:update', 'volume:delete',
    'volume:multiattach', 'volume:create_volume_metadata', 'volume:update_volume_metadata',
    'volume:delete_volume_metadata', 'volume:extend', 'volume:extend_attached_volume',
    'volume:retype',
    'volume:revert_to_snapshot', 'volume:update_readonly_flag',
    'volume_extension:volume_actions:initialize_connection',
    'volume_extension:volume_actions:terminate_connection',
    'volume_extension:volume_actions:roll_detaching', 'volume_extension:volume_actions:reserve',
    'volume_extension:volume_actions:unreserve',
    'volume_extension:volume_actions:begin_detaching', 'volume_extension:volume_actions:attach',
    'volume_extension:volume_actions:detach', 'volume:create_snapshot',
    'volume:update_snapshot', 'volume:delete_snapshot', 'volume:update_snapshot_metadata',
    'volume:delete_snapshot_metadata',
    'snapshot_extension:snapshot_actions:update_snapshot_status',
    'volume:attachment_create', 'volume:attachment_update', 'volume:attachment_delete',
    'volume:attachment_complete', 'volume:multiattach_bootable_volume', 'message:delete',
    'volume:create_transfer', 'volume:accept_transfer', 'volume:delete_transfer',
    'volume_extension:volume_type_access', 'backup:create', 'backup:update', 'backup:delete',
    'backup:restore', 'group:create', 'group:delete', 'group:update',
    'group:create_group_snapshot', 'group:delete_group_snapshot', 'group:enable_replication',
    'group:disable_replication', 'group:failover_replication',
    'group:list_replication_targets',
)
ADMIN = (
    'volume:force_delete', 'volume_extension:volume_host_attribute',
    'volume_extension:volume_mig_status_attribute', 'volume:update_volume_admin_metadata',
    'volume_extension:volume_admin_actions:reset_status',
    'volume_extension:volume_admin_actions:force_delete',
    'volume_extension:volume_admin_actions:force_detach',
    'volume_extension:volume_admin_actions:migrate_volume',
    'volume_extension:volume_admin_actions:migrate_volume_completion',
    'volume_extension:snapshot_admin_actions:reset_status',
    'volume_extension:snapshot_admin_actions:force_delete',
    'volume_extension:type_create', 'volume_extension:type_update',
    'volume_extension:type_delete', 'volume_extension:access_types_qos_specs_id',
    'volume_extension:types_extra_specs:create', 'volume_extension:types_extra_specs:update',
    'volume_extension:types_extra_specs:delete',
    'volume_extension:types_extra_specs:read_sensitive',
    'volume_extension:volume_type_access:get_all_for_type',
    'volume_extension:volume_type_access:addProjectAccess',
    'volume_extension:volume_type_access:removeProjectAccess',
    'volume_extension:default_set_or_update', 'volume_extension:default_get',
    'volume_extension:default_get_all', 'volume_extension:default_unset',
    'volume_extension:qos_specs_manage:get_all', 'volume_extension:qos_specs_manage:get',
    'volume_extension:qos_specs_manage:create', 'volume_extension:qos_specs_manage:update',
    'volume_extension:qos_specs_manage:delete', 'volume_extension:quotas:update',
    'volume_extension:quotas:delete', 'volume_extension:quota_classes:get',
    'volume_extension:quota_classes:update', 'volume_extension:services:index',
    'volume_extension:services:update', 'volume:freeze_host',
    'volume:thaw_host', 'volume:failover_host', 'clusters:get_all', 'clusters:get',
    'clusters:update',
    'scheduler_extension:scheduler_stats:get_pools', 'volume_extension:capabilities',
    'workers:cleanup', 'backup:backup_project_attribute', 'backup:backup-import',
    'backup:export-import', 'volume_extension:backup_admin_actions:reset_status',
    'volume_extension:backup_admin_actions:force_delete',
    'volume_extension:volume_type_encryption', 'volume_extension:volume_type_encryption:create',
    'volume_extension:volume_type_encryption:get',
    'volume_extension:volume_type_encryption:update',
    'volume_extension:volume_type_encryption:delete', 'volume_extension:hosts',
    'volume_extension:volume_manage', 'volume_extension:volume_unmanage',
    'volume_extension:list_manageable', 'snapshot_extension:snapshot_manage',
    'snapshot_extension:snapshot_unmanage', 'snapshot_extension:list_manageable',
    'group:group_types:create', 'group:group_types:update', 'group:group_types:delete',
    'group:access_group_types_specs', 'group:group_types_specs:get',
    'group:group_types_specs:get_all', 'group:group_types_specs:create',
    'group:group_types_specs:update', 'group:group_types_specs:delete',
    'group:group_project_attribute', 'group:reset_status',
    'group:group_snapshot_project_attribute', 'group:reset_group_snapshot_status',
)
PERSONA_CHECKS = {READER: base.SYSTEM_ADMIN_OR_PROJECT_READER,
                  MEMBER: base.SYSTEM_ADMIN_OR_PROJECT_MEMBER, ADMIN: base.RULE_ADMIN_API}
BASE_RULES = {r.name for r in base.list_rules()}

# Keystone's implied roles: an admin is also a member and a reader, a member a reader.
IMPLIED = {'reader': ['reader'], 'member': ['member', 'reader'],
           'admin': ['admin', 'member', 'reader']}
OWN, OTHER = 'project-a', 'project-b'


def _ctx(role, project):
    return context.RequestContext(user_id=f'{role}-{project}', project_id=project,
                                  roles=list(IMPLIED[role]) if role else [])


def _allowed(enforcer, ctx, rule):
    try:
        enforcer.authorize(ctx, rule, {'project_id': OWN, 'user_id': 'owner'})
    except exception.PolicyNotAuthorized:
        return False
    return True


@pytest.fixture
def enforcer(conf):
    return enforcer_module.Enforcer(conf)


def test_every_rule_has_one_persona():
    tabled = READER + MEMBER + ADMIN
    assert len(tabled) == len(set(tabled))
    assert set(tabled) == {r.name for r in list_rules()} - BASE_RULES


@pytest.mark.parametrize('names', PERSONA_CHECKS, ids=['reader', 'member', 'admin'])
def test_each_rule_uses_its_personas_check_string(names):
    defaults = {r.name: r for r in list_rules()}
    assert {name: defaults[name].check_str for name in names} == {
        name: PERSONA_CHECKS[names] for name in names}


@pytest.mark.parametrize(('names', 'callers'), [
    (READER, {('reader', OWN), ('member', OWN), ('admin', OWN), ('admin', OTHER)}),
    (MEMBER, {('member', OWN), ('admin', OWN), ('admin', OTHER)}),
    (ADMIN, {('admin', OWN), ('admin', OTHER)}),
], ids=['reader', 'member', 'admin'])
def test_personas_as_enforced(enforcer, names, callers):
    everyone = {(role, project) for role in IMPLIED for project in (OWN, OTHER)}
    for name in names:
        allowed = {caller for caller in everyone if _allowed(enforcer, _ctx(*caller), name)}
        assert allowed == callers, name


def test_deprecated_rules_apply_only_when_the_operator_asks(conf, enforcer):
    """A token with no role on the project passes Cinder's Wallaby `admin_or_owner` only with
    `enforce_new_defaults = False`; the new defaults (oslo.policy's default) refuse it."""
    roleless = _ctx(None, OWN)
    assert not _allowed(enforcer, roleless, 'volume:get')
    conf.set_override('enforce_new_defaults', False, group='oslo_policy')
    old = enforcer_module.Enforcer(conf)
    assert _allowed(old, roleless, 'volume:get')
    assert _allowed(old, roleless, 'volume:create_snapshot')
    assert not _allowed(old, roleless, 'volume_extension:volume_admin_actions:reset_status')
    assert not _allowed(old, _ctx(None, OTHER), 'volume:get')


def test_renamed_rules_keep_their_old_names():
    defaults = {r.name: r for r in list_rules()}
    renamed = {name: rule.deprecated_rule.name for name, rule in defaults.items()
               if rule.deprecated_rule is not None and rule.deprecated_rule.name != name}
    assert renamed == {
        'volume_extension:quota_classes:get': 'volume_extension:quota_classes',
        'volume_extension:quota_classes:update': 'volume_extension:quota_classes',
        'volume_extension:type_create': 'volume_extension:types_manage',
        'volume_extension:type_update': 'volume_extension:types_manage',
        'volume_extension:type_delete': 'volume_extension:types_manage',
        **{f'group:group_types:{verb}': 'group:group_types_manage'
           for verb in ('create', 'update', 'delete')},
        **{f'group:group_types_specs:{verb}': 'group:group_types_specs'
           for verb in ('get', 'get_all', 'create', 'update', 'delete')},
    }


def test_an_override_of_an_old_name_reaches_the_rules_that_replaced_it(conf, enforcer,
                                                                        tmp_path):
    policy_file = tmp_path / 'policy.yaml'
    policy_file.write_text('"volume_extension:types_manage": "!"\n')
    # NOTE(registered): the fixture's enforcer registered [oslo_policy]; a new one reads it.
    conf.set_override('policy_file', str(policy_file), group='oslo_policy')
    enforcer = enforcer_module.Enforcer(conf)
    admin = _ctx('admin', OWN)
    assert not _allowed(enforcer, admin, 'volume_extension:type_create')
    assert not _allowed(enforcer, admin, 'volume_extension:type_delete')
    assert _allowed(enforcer, admin, 'volume_extension:type_get')
