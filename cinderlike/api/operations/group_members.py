"""cinderlike-api: which volumes a group update adds and removes (Cinder's
_validate_add_volumes / _validate_remove_volumes, with its messages).

The checks read the volumes before the group goes `updating`; the volume service writes the
membership fenced on that status and on each volume still being free (db/groups.py
change_members), so a volume that changed meanwhile is skipped, never misfiled.
"""

from cinderlike import exception
from cinderlike.db import groups as db_groups
from cinderlike.db import pools as db_pools
from cinderlike.db import volumes as db_volumes
from cinderlike.states import groups as states


def id_list(text: str | None) -> list[str]:
    """'a,b,' → ['a', 'b'] (Cinder strips the commas at both ends, then splits)."""
    return text.strip(',').split(',') if text else []


def _backend(row) -> str | None:
    pool = db_pools.pool_of(row)
    return pool.partition('#')[0] if pool else None


def to_remove(group, members: list[str], wanted: list[str], volumes: dict) -> list[str]:
    """:raises InvalidVolume:"""
    removed = []
    for volume_id in members:
        if volume_id not in wanted:
            continue
        status = volumes[volume_id].status
        if status not in states.REMOVE_VOLUME_FROM:
            raise exception.InvalidVolume(
                reason=f'Cannot remove volume {volume_id} from group {group.id} because '
                       f'volume is in an invalid state: {status}. Valid states are: '
                       f'{states.REMOVE_VOLUME_FROM}.')
        removed.append(volume_id)
    for volume_id in wanted:
        if volume_id not in removed:
            raise exception.InvalidVolume(
                reason=f'Cannot remove volume {volume_id} from group {group.id} because it '
                       'is not in the group.')
    return removed


def _addable(db, group, volume_id: str):
    """:raises InvalidVolume:"""
    prefix = f'Cannot add volume {volume_id} to group {group.id}'
    try:
        volume = db_volumes.get(db, volume_id=volume_id)
    except exception.VolumeNotFound:
        raise exception.InvalidVolume(
            reason=f'{prefix} because volume cannot be found.') from None
    if volume.group_id:
        raise exception.InvalidVolume(
            reason=f'{prefix} because it is already in group {volume.group_id}.')
    if volume.project_id != group.project_id:
        raise exception.InvalidVolume(reason=f'{prefix} as they belong to different projects.')
    allowed = db_groups.volume_type_ids(db, group_ids=[group.id])[group.id]
    if volume.volume_type_id not in allowed:
        raise exception.InvalidVolume(
            reason=f'{prefix} because volume type {volume.volume_type_id} is not supported '
                   'by the group.')
    if volume.status not in states.ADD_VOLUME_FROM:
        raise exception.InvalidVolume(
            reason=f'{prefix} because volume is in an invalid state: {volume.status}. Valid '
                   f'states are: {states.ADD_VOLUME_FROM}.')
    if _backend(volume) != _backend(group):
        raise exception.InvalidVolume(reason='Volume is not local to this node.')
    return volume


def to_add(db, group, members: list[str], wanted: list[str]) -> list[str]:
    """:raises InvalidVolume:"""
    return [_addable(db, group, volume_id).id for volume_id in dict.fromkeys(wanted)
            if volume_id not in members]
