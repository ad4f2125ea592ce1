"""cinderlike-api: manage and unmanage volumes and snapshots, and the manageable lists
(Cinder's volume/api.py manage_existing, manage_existing_snapshot, get_manageable_*, and
delete / delete_snapshot with unmanage_only).

A managed volume is inserted `managing` with size 0 and `use_quota` False: its quota and its
pool's capacity are taken by the volume service once the driver found the object's size.
"""

from oslo_log import log as logging

from cinderlike import exception, messages, quota
from cinderlike.api import casting
from cinderlike.api.operations import snapshots as snapshot_operations
from cinderlike.api.operations.volumes import scope
from cinderlike.db import services as db_services
from cinderlike.db import snapshots as db_snapshots
from cinderlike.db import volume_types as db_types
from cinderlike.db import volumes as db_volumes
from cinderlike.db.models import Snapshot, Volume, utcnow
from cinderlike.states.machine import PREVIOUS
from cinderlike.states.snapshots import Status as SnapshotStatus
from cinderlike.states.volumes import AttachStatus, Status

LOG = logging.getLogger(__name__)

# NOTE(template): Cinder's volume_name_template, the name drivers give a volume's object
# (drivers/volume/base.py, which api/ may not import): a reference by that name is a volume's.
VOLUME_NAME_PREFIX = 'volume-'
SORT_KEYS = ('reference', 'size')
SORT_DIRS = ('asc', 'desc')


def service_for(conf, db, *, host: str | None, cluster_name: str | None):
    """The live volume service of *host* (`host@backend[#pool]`) or an up member of
    *cluster_name* (Cinder's _get_service_by_host_cluster).

    :raises ServiceNotFound: none; ServiceUnavailable: disabled or down.
    """
    backend = (cluster_name or host).partition('#')[0]
    rows = db_services.get_all(db, binary=db_services.VOLUME_BINARY,
                               **({'cluster_name': backend} if cluster_name else {'host': backend}))
    if not rows:
        raise exception.ServiceNotFound(service_id=db_services.VOLUME_BINARY, host=backend)
    now = utcnow()
    up = [r for r in rows if db_services.is_up(r, down_time=conf.service_down_time, now=now)]
    service = (up or rows)[0]
    enabled = db_services.get_all(db, binary=db_services.VOLUME_BINARY, disabled=False,
                                  host=service.host)
    if not enabled:
        LOG.error('Unable to manage existing objects on disabled service %s', service.host)
        raise exception.ServiceUnavailable()
    if not up:
        LOG.error('Unable to manage existing objects on down service %s', service.host)
        raise exception.ServiceUnavailable()
    return service


def _named_volume_id(ref) -> str | None:
    """The volume id a reference names by Cinder's `volume-<id>` template (or source-id)."""
    if not isinstance(ref, dict):
        return None
    if ref.get('source-id'):
        return str(ref['source-id'])
    name = ref.get('source-name')
    if isinstance(name, str) and name.startswith(VOLUME_NAME_PREFIX):
        return name[len(VOLUME_NAME_PREFIX):]
    return None


def _already_managed(db, ref) -> bool:
    """Whether *ref* names a live volume's object (an unmanaged one's may come back)."""
    named = _named_volume_id(ref)
    if named is None:
        return False
    try:
        db_volumes.get(db, volume_id=named)
    except exception.VolumeNotFound:
        return False
    return True


def manage_volume(conf, db, rpc, ctx, *, host: str | None, cluster_name: str | None,
                  ref, name=None, description=None, volume_type=None, metadata=None,
                  availability_zone=None, bootable=False):
    """Insert a `managing` volume for the backend object *ref* and cast to the scheduler;
    the new row and its type.

    :raises InvalidVolume: (already managed), InvalidVolumeType, ServiceNotFound,
        ServiceUnavailable:
    """
    if _already_managed(db, ref):
        raise exception.InvalidVolume(
            reason='Unable to manage existing volume. The volume is already managed')
    if volume_type:
        try:
            vtype = db_types.get_by_name_or_id(db, ctx_project_id=ctx.project_id,
                                               is_admin=ctx.is_admin, name_or_id=volume_type)
        except exception.VolumeTypeNotFound:
            raise exception.InvalidVolumeType(
                reason=f"Cannot find requested '{volume_type}' volume type") from None
    else:
        vtype = db_types.get_default_for_project(db, project_id=ctx.project_id,
                                                 conf_default_name=conf.default_volume_type)
    service = service_for(conf, db, host=host, cluster_name=cluster_name)
    manage_host = host if not cluster_name and '#' in (host or '') else service.host
    volume = db_volumes.create(db, metadata=metadata, values={
        'size': 0, 'user_id': ctx.user_id, 'project_id': ctx.project_id,
        'availability_zone': availability_zone or service.availability_zone,
        'status': Status.MANAGING, 'attach_status': AttachStatus.DETACHED,
        'display_name': name, 'display_description': description,
        'volume_type_id': vtype.id, 'host': manage_host,
        'cluster_name': service.cluster_name, 'bootable': bool(bootable),
        'replication_status': 'disabled', 'use_quota': False,
        'multiattach': vtype.extra_specs.get('multiattach') == '<is> True'})
    spec = {'volume_id': volume.id, 'ref': ref,
            'volume_properties': {'size': 0, 'availability_zone': volume.availability_zone,
                                  'project_id': volume.project_id,
                                  'volume_type_id': vtype.id},
            'volume_type': {'id': vtype.id, 'name': vtype.name,
                            'extra_specs': dict(vtype.extra_specs)}}
    # NOTE(undo): the `managing` row holds no quota and no capacity yet; while still
    # `managing` no volume service has adopted the object, so the row just goes.
    casting.send(lambda: rpc.scheduler.manage_existing(ctx, volume_id=volume.id, ref=ref,
                                                       request_spec=spec),
                 undo=lambda: db_volumes.MACHINE.destroy(
                     db, row_id=volume.id, where=[Volume.status == Status.MANAGING]),
                 resource='Volume', resource_id=volume.id, what='manage_existing')
    return volume, vtype


def unmanage_volume(conf, db, rpc, ctx, *, volume_id: str) -> None:
    """os-unmanage: CAS into `unmanaging` (the delete's conditions) and cast the delete
    with unmanage_only.

    :raises VolumeNotFound, InvalidVolume, Invalid: (encrypted)
    """
    volume = db_volumes.get(db, volume_id=volume_id, project_id=scope(ctx))
    if volume.encryption_key_id is not None:
        # NOTE(cinder): Invalid's text ignores the reason (Cinder's answer is "Unacceptable
        # parameters."); the user message says why.
        error = exception.Invalid(reason='Unmanaging encrypted volumes is not supported.')
        messages.create(db, ctx, conf=conf, action=messages.Action.UNMANAGE_VOLUME,
                        resource_uuid=volume.id,
                        detail=messages.Detail.UNMANAGE_ENC_NOT_SUPPORTED, exception=error)
        raise error
    volume = db_volumes.MACHINE.begin(db, row_id=volume_id, action='unmanage',
                                      project_id=scope(ctx),
                                      values={'terminated_at': utcnow()})
    casting.send(lambda: rpc.volume.delete_volume(
        ctx, volume_id=volume.id, host=volume.host, cluster_name=volume.cluster_name,
        unmanage_only=True), undo=lambda: db_volumes.MACHINE.finish(
            db, row_id=volume.id, action='unmanage', status=PREVIOUS,
            values={'terminated_at': None}),
        resource='Volume', resource_id=volume.id, what='delete_volume (unmanage)')


def manage_snapshot(conf, db, rpc, ctx, *, volume, ref, name=None, description=None,
                    metadata=None):
    """Insert a `creating` snapshot of *volume* (quota committed) for the backend object
    *ref* and cast to the scheduler; the new row.

    :raises ServiceNotFound, ServiceUnavailable, InvalidVolume, over-quota (413):
    """
    service_for(conf, db, host=volume.host, cluster_name=volume.cluster_name)
    # NOTE(workers): an adopted snapshot is settled by MACHINE.finish on the volume service
    # (volume/manage_existing.py), with no workers row, as Cinder's manage.
    snapshot, _hold, deltas = snapshot_operations.insert(
        conf, db, ctx, volume_id=volume.id, name=name, description=description,
        metadata=metadata, allow_in_use=True, with_worker=False)
    spec = {'snapshot_id': snapshot.id, 'volume_properties': {'size': volume.size}}
    def undo():
        with db.writer() as s:
            if not db_snapshots.MACHINE.destroy(
                    db, row_id=snapshot.id, session=s,
                    where=[Snapshot.status == SnapshotStatus.CREATING]):
                return False
            quota.release_usage(db, project_id=snapshot.project_id, session=s,
                                deltas={key: -amount for key, amount in deltas.items()})
        return True
    casting.send(lambda: rpc.scheduler.manage_existing_snapshot(
        ctx, snapshot_id=snapshot.id, volume_id=volume.id, ref=ref, request_spec=spec),
        undo=undo, resource='Snapshot', resource_id=snapshot.id,
        what='manage_existing_snapshot')
    return snapshot


def unmanage_snapshot(db, rpc, ctx, *, snapshot_id: str) -> None:
    """os-unmanage of a snapshot: CAS into `unmanaging`, cast the delete with unmanage_only.

    :raises SnapshotNotFound, InvalidSnapshot:
    """
    snapshot = db_snapshots.get(db, snapshot_id=snapshot_id, project_id=scope(ctx))
    volume = db_volumes.get(db, volume_id=snapshot.volume_id)
    with db.writer() as s:
        # NOTE(frozen): as Cinder's delete_snapshot, an unmanage skips the frozen check.
        snapshot, before = db_snapshots.begin_delete(db, snapshot_id=snapshot_id,
                                                     action='unmanage', session=s,
                                                     unfrozen=None)
    casting.send(lambda: rpc.volume.delete_snapshot(
        ctx, snapshot_id=snapshot.id, host=volume.host, cluster_name=volume.cluster_name,
        unmanage_only=True), undo=lambda: db_snapshots.MACHINE.finish(
            db, row_id=snapshot.id, action='unmanage', status=before),
        resource='Snapshot', resource_id=snapshot.id, what='delete_snapshot (unmanage)')


def sort_order(pairs) -> tuple[list[str], list[str]]:
    """(sort_keys, sort_dirs) with Cinder's defaults (reference, desc) and checks.

    :raises InvalidParameterValue:
    """
    pairs = pairs or [('reference', None)]
    keys = [key for key, _direction in pairs]
    dirs = [direction or 'desc' for _key, direction in pairs]
    bad_keys = sorted(set(keys) - set(SORT_KEYS))
    if bad_keys:
        raise exception.InvalidParameterValue(
            err=f"Invalid sort keys passed: {', '.join(bad_keys)}")
    bad_dirs = sorted(set(dirs) - set(SORT_DIRS))
    if bad_dirs:
        raise exception.InvalidParameterValue(
            err=f"Invalid sort dirs passed: {', '.join(bad_dirs)}")
    return keys, dirs


def manageable(conf, db, rpc, ctx, *, snapshots: bool, host, cluster_name, marker, limit,
               offset, sort_keys, sort_dirs) -> list[dict]:
    """The manageable volumes (or snapshots) of a backend, asked of its volume service.

    :raises ServiceNotFound, ServiceUnavailable, InvalidInput: (a bad marker)
    """
    service = service_for(conf, db, host=host, cluster_name=cluster_name)
    method = (rpc.volume.get_manageable_snapshots if snapshots
              else rpc.volume.get_manageable_volumes)
    return method(ctx, host=service.host, cluster_name=service.cluster_name, marker=marker,
                  limit=limit, offset=offset, sort_keys=sort_keys, sort_dirs=sort_dirs)
