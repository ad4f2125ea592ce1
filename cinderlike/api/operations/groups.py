"""cinderlike-api: generic volume group rules — checks, quota, state CAS via db/, RPC casts.

Cinder's cinder/group/api.py. A group row is inserted `creating` with its `groups` quota
committed in the same transaction, so a refused request writes nothing and holds no quota;
the scheduler then picks the one backend that serves every volume type of the group.
"""

from oslo_log import log as logging

from cinderlike import exception, quota, rpc
from cinderlike.api import casting, listing
from cinderlike.api.operations import group_members
from cinderlike.api.operations.volumes import scope
from cinderlike.db import group_types as db_group_types
from cinderlike.db import groups as db_groups
from cinderlike.db import replication as db_replication
from cinderlike.db import services as db_services
from cinderlike.db import volume_types as db_types
from cinderlike.db import volumes as db_volumes
from cinderlike.states import groups as states

LOG = logging.getLogger(__name__)


class Notifier:
    """The API's group events: `groups.reset_status.*` (publisher `groupStatusUpdate`)."""

    def __init__(self, conf):
        self.status = rpc.get_notifier(conf, publisher_id=f'groupStatusUpdate.{conf.host}')


def get(db, ctx, *, group_id: str):
    """:raises GroupNotFound: also for another project's group, as Cinder."""
    return db_groups.get(db, group_id=group_id, project_id=scope(ctx))


def check_not_cgsnapshot_type(group_type_id: str, reserved_id: str | None) -> None:
    """:raises InvalidGroupType: the type is reserved for migrated consistency groups."""
    if reserved_id is not None and group_type_id == reserved_id:
        raise exception.Invalid(
            f'Group_type {group_type_id} is reserved for migrating CGs to groups. Migrated '
            'group can only be operated by CG APIs.')


def reserved_type_id(db) -> str | None:
    """The id of Cinder's `default_cgsnapshot_type`, when it exists."""
    try:
        return db_group_types.get_by_name(
            db, name=db_group_types.DEFAULT_CGSNAPSHOT_TYPE).id
    except exception.GroupTypeNotFoundByName:
        return None


def listed(db, ctx, table, params: dict, *, marker, limit, offset, sort) -> list:
    """A page of *table* (db_groups.LISTING or db_group_snapshots.LISTING): the caller's
    project, or every project for an admin's `all_tenants`; *params* are the filters left.

    NOTE(cgsnapshot): Cinder hides the groups (and their snapshots) of the reserved
    `default_cgsnapshot_type`, which consistency groups migrated into.
    :raises Invalid: a non-boolean all_tenants.
    """
    all_tenants = listing.bool_param(params, 'all_tenants')
    params.pop('all_tenants', None)
    project = None if (ctx.is_admin and all_tenants) else ctx.project_id
    reserved = reserved_type_id(db)
    return [row for row in table.get_all(db, project_id=project, filters=params,
                                         marker=marker, limit=limit, offset=offset, sort=sort)
            if reserved is None or row.group_type_id != reserved]


def _zone(conf, db, wanted) -> str:
    """Cinder's group _extract_availability_zone. :raises InvalidInput:"""
    fallback = conf.default_availability_zone or conf.storage_availability_zone
    zone = wanted or fallback
    known = db_services.availability_zones(db, binary=db_services.VOLUME_BINARY)
    known.add(conf.storage_availability_zone)
    if zone not in known:
        if not conf.allow_availability_zone_fallback:
            raise exception.InvalidInput(reason=f"Availability zone '{zone}' is invalid.")
        LOG.warning('Availability zone %s is unknown; using %s', zone, fallback)
        zone = fallback
    return zone


def _volume_types(db, ctx, names_or_ids) -> list:
    """:raises VolumeTypeNotFound: (any type the caller cannot see, by id or name)"""
    return [db_types.get_by_name_or_id(db, ctx_project_id=ctx.project_id, is_admin=ctx.is_admin,
                                       name_or_id=wanted) for wanted in names_or_ids]


def create(conf, db, rpc_clients, ctx, *, name, description, group_type: str,
           volume_types: list[str], availability_zone=None):
    """Insert a `creating` group and cast it to the scheduler; the new row.

    :raises GroupTypeNotFound, VolumeTypeNotFound, Invalid, InvalidInput, GroupLimitExceeded:
    """
    gtype = db_group_types.get_by_name_or_id(db, name_or_id=group_type,
                                             project_id=ctx.project_id, is_admin=ctx.is_admin)
    check_not_cgsnapshot_type(gtype.id, reserved_type_id(db))
    vtypes = _volume_types(db, ctx, volume_types)
    zone = _zone(conf, db, availability_zone)
    with db.writer() as s:
        reservations = quota.reserve(db, ctx, conf=conf, project_id=ctx.project_id,
                                     deltas={'groups': 1}, session=s)
        group = db_groups.create(db, session=s, volume_type_ids=[t.id for t in vtypes], values={
            'user_id': ctx.user_id, 'project_id': ctx.project_id, 'availability_zone': zone,
            'name': name, 'description': description, 'group_type_id': gtype.id,
            'replication_status': 'disabled'})
        quota.commit(db, ctx, reservations, session=s)
    spec = {'group_id': group.id, 'group_type': {'id': gtype.id, 'name': gtype.name,
                                                 'group_specs': dict(gtype.group_specs)},
            'availability_zone': zone,
            'volume_types': [{'id': t.id, 'name': t.name, 'extra_specs': dict(t.extra_specs)}
                             for t in vtypes]}
    casting.send(lambda: rpc_clients.scheduler.create_group(ctx, group_id=group.id,
                                                            request_spec=spec),
                 undo=lambda: db_groups.undo_create(db, group=group, deltas={'groups': 1}),
                 resource='Group', resource_id=group.id, what='create_group to the scheduler')
    return group


def delete(conf, db, rpc_clients, ctx, *, group_id: str, delete_volumes: bool) -> None:
    """Cinder's group delete: an unplaced group goes at once (its quota given back),
    else CAS into `deleting` (members too with *delete_volumes*) and cast to its backend.

    :raises GroupNotFound, Invalid, InvalidGroup, InvalidInput: (frozen backend)
    """
    group = get(db, ctx, group_id=group_id)
    check_not_cgsnapshot_type(group.group_type_id, reserved_type_id(db))
    if not group.host:
        with db.writer() as s:
            if db_groups.destroy_unplaced(db, group_id=group_id, session=s):
                quota.release_usage(db, project_id=group.project_id, deltas={'groups': -1},
                                    session=s)
                return
    db_replication.assert_not_frozen(db, host=group.host, cluster_name=group.cluster_name)
    group, left = db_groups.begin_delete(db, group_id=group_id, project_id=scope(ctx),
                                         delete_volumes=delete_volumes)
    casting.send(lambda: rpc_clients.volume.delete_group(
        ctx, group_id=group_id, host=group.host, cluster_name=group.cluster_name),
        undo=lambda: db_groups.undo_delete(db, group_id=group_id, statuses=left,
                                           delete_volumes=delete_volumes),
        resource='Group', resource_id=group_id, what='delete_group')


def update(db, rpc_clients, ctx, *, group_id: str, name=None, description=None,
           add_volumes: str | None = None, remove_volumes: str | None = None) -> None:
    """Cinder's group update: a new name/description at once; member changes CAS the
    group into `updating` and go to its backend.

    :raises GroupNotFound, Invalid, InvalidVolume, InvalidGroup:
    """
    group = get(db, ctx, group_id=group_id)
    check_not_cgsnapshot_type(group.group_type_id, reserved_type_id(db))
    name = None if name == group.name else name
    description = None if description == group.description else description
    add, remove = group_members.id_list(add_volumes), group_members.id_list(remove_volumes)
    both = [volume_id for volume_id in add if volume_id in remove]
    if both:
        raise exception.InvalidVolume(reason=f'UUIDs {both} are in both add and remove volume '
                                             'list.')
    members = db_groups.volume_ids(db, group_ids=[group_id])[group_id]
    added = group_members.to_add(db, group, members, add) if add else []
    removed = group_members.to_remove(group, members, remove, {
        volume_id: db_volumes.get(db, volume_id=volume_id) for volume_id in members}
    ) if remove else []
    values = {key: value for key, value in (('name', name), ('description', description))
              if value is not None}
    if not values and not added and not removed:
        raise exception.InvalidGroup(
            reason=f'Cannot update group {group_id} because no valid name, description, '
                   'add_volumes, or remove_volumes were provided.')
    if not added and not removed:
        db_groups.rename(db, group_id=group_id, project_id=scope(ctx), values=values)
        return
    before = {key: getattr(group, key) for key in values}
    group = db_groups.MACHINE.begin(db, row_id=group_id, action='update',
                                    project_id=scope(ctx), values=values)
    # NOTE(undo): `update` begins from available only, so that is where it returns.
    casting.send(lambda: rpc_clients.volume.update_group(
        ctx, group_id=group_id, host=group.host, cluster_name=group.cluster_name,
        add_volumes=added, remove_volumes=removed),
        undo=lambda: db_groups.MACHINE.finish(db, row_id=group_id, action='update',
                                              status=states.Status.AVAILABLE, values=before),
        resource='Group', resource_id=group_id, what='update_group')


def reset_status(db, notifier, ctx, *, group_id: str, status: str) -> None:
    """Admin reset-state (3.20): a plain write, as Cinder, with its notifications.

    :raises GroupNotFound:
    """
    event = {'id': group_id, 'update': status}
    notifier.status.info(ctx, 'groups.reset_status.start', event)
    try:
        db_groups.MACHINE.reset(db, row_id=group_id, values={'status': status})
    except exception.GroupNotFound as err:
        notifier.status.error(ctx, 'groups.reset_status',
                              {'error_message': err.msg, 'id': group_id})
        raise
    notifier.status.info(ctx, 'groups.reset_status.end', event)

