"""Policy defaults of manage/unmanage and the manageable lists (Cinder's
manageable_volumes and manageable_snapshots): all for admins."""

from cinderlike.policies import base

MANAGE_POLICY = 'volume_extension:volume_manage'
UNMANAGE_POLICY = 'volume_extension:volume_unmanage'
LIST_MANAGEABLE_POLICY = 'volume_extension:list_manageable'
SNAPSHOT_MANAGE_POLICY = 'snapshot_extension:snapshot_manage'
SNAPSHOT_UNMANAGE_POLICY = 'snapshot_extension:snapshot_unmanage'
SNAPSHOT_LIST_MANAGEABLE_POLICY = 'snapshot_extension:list_manageable'

# The list rule of volumes (False) and of snapshots (True).
LIST_POLICIES = {False: LIST_MANAGEABLE_POLICY, True: SNAPSHOT_LIST_MANAGEABLE_POLICY}

_ADMIN = base.RULE_ADMIN_API

rules = [
    base.rule(LIST_MANAGEABLE_POLICY, _ADMIN,
              'List (in detail) of volumes which are available to manage.',
              ('GET', '/manageable_volumes'), ('GET', '/manageable_volumes/detail')),
    base.rule(MANAGE_POLICY, _ADMIN, 'Manage existing volumes.',
              ('POST', '/manageable_volumes')),
    base.rule(UNMANAGE_POLICY, _ADMIN, 'Stop managing a volume.',
              ('POST', '/volumes/{volume_id}/action (os-unmanage)')),
    base.rule(SNAPSHOT_LIST_MANAGEABLE_POLICY, _ADMIN,
              'List (in detail) of snapshots which are available to manage.',
              ('GET', '/manageable_snapshots'), ('GET', '/manageable_snapshots/detail')),
    base.rule(SNAPSHOT_MANAGE_POLICY, _ADMIN, 'Manage an existing snapshot.',
              ('POST', '/manageable_snapshots')),
    base.rule(SNAPSHOT_UNMANAGE_POLICY, _ADMIN, 'Stop managing a snapshot.',
              ('POST', '/snapshots/{snapshot_id}/action (os-unmanage)')),
]


def list_rules():
    return rules
