"""cinderlike-api: the group replication actions (3.38: enable_replication,
disable_replication, failover_replication, list_replication_targets).

No cinderlike driver replicates, so the scheduler never places a group whose type asks for
`group_replication_enabled` (no backend reports it): a placed group is refused by Cinder's
own type check. A replication group that got here anyway (its status reset by an admin) is
refused with the backend named, before anything is written; nothing pretends to replicate.
"""

from cinderlike import exception
from cinderlike.db import group_types as db_group_types
from cinderlike.db import groups as db_groups
from cinderlike.db import volume_types as db_types
from cinderlike.states import groups as states

_IS_TRUE = '<is> True'

# action -> the words Cinder's refusals end with
ACTIONS = {'enable_replication': 'Cannot enable replication.',
           'disable_replication': 'Cannot disable replication.',
           'failover_replication': 'Cannot failover replication.',
           'list_replication_targets': 'Cannot list replication targets.'}


def _check_type(db, group) -> None:
    """Cinder's _check_type. :raises InvalidGroupType, InvalidVolumeType:"""
    specs = db_group_types.get(db, type_id=group.group_type_id).group_specs
    if specs.get('group_replication_enabled') != _IS_TRUE:
        raise exception.InvalidGroupType(
            reason=f'Group {group.id} is not a replication group type.')
    for type_id in db_groups.volume_type_ids(db, group_ids=[group.id])[group.id]:
        if db_types.get_extra_specs(db, type_id=type_id).get('replication_enabled') != _IS_TRUE:
            raise exception.InvalidVolumeType(
                reason=f"Volume type {type_id} does not have 'replication_enabled' spec key "
                       "set to '<is> True'.")


def refuse(db, group, action: str) -> None:
    """Cinder's checks for *action*, then the refusal of a backend that cannot replicate.

    :raises InvalidGroupType, InvalidVolumeType, InvalidGroup:
    """
    _check_type(db, group)
    if action != 'list_replication_targets' and group.status != states.Status.AVAILABLE:
        raise exception.InvalidGroup(
            reason=f"Group {group.id} status must be ['available'], but current status is: "
                   f'{group.status}. {ACTIONS[action]}')
    raise exception.InvalidGroup(
        reason=f'Group {group.id} is on backend {group.host}, which does not replicate. '
               f'{ACTIONS[action]}')
