"""cinderlike-api: retype and migration rules (Cinder's volume/api.py retype, migrate_volume,
migrate_volume_completion): lookups, per-type quota, the CAS via db/, the RPC casts.
"""

from oslo_log import log as logging

from cinderlike import exception, quota
from cinderlike.api import casting
from cinderlike.db import migrations_status as db_migrations
from cinderlike.db import qos_specs as db_qos_specs
from cinderlike.db import reservations as db_reservations
from cinderlike.db import services as db_services
from cinderlike.db import volume_types as db_types
from cinderlike.db import volumes as db_volumes
from cinderlike.db.models import Volume
from cinderlike.policies import volumes as volume_policy
from cinderlike.states import migrations as migration_states
from cinderlike.states import volumes as states
from cinderlike.states.machine import PREVIOUS

LOG = logging.getLogger(__name__)

RETYPE_REFUSED = ('Retype needs volume to be in available or in-use state, not be part of an '
                  'active migration or a consistency group, requested type has to be '
                  'different that the one from the volume, and for in-use volumes front-end '
                  'qos specs cannot change.')


def _type_spec(vtype) -> dict:
    return {'id': vtype.id, 'name': vtype.name, 'extra_specs': dict(vtype.extra_specs)}


def _multiattach(vtype) -> bool:
    return vtype.extra_specs.get('multiattach', 'False') == '<is> True'


def _frontend_qos(db, type_id: str) -> dict | None:
    qos = db_qos_specs.get_for_type(db, type_id=type_id)['qos_specs']
    return qos if qos is not None and qos['consumer'] in ('front-end', 'both') else None


def _type_reservations(db, ctx, conf, volume, type_name: str | None, sign: int) -> list[str]:
    """Cinder's get_volume_type_reservation(reserve_vol_type_only=True): the per-type
    volumes_<type>/gigabytes_<type> of the volume, negative for the type it leaves."""
    deltas = {key: sign * value for key, value in quota.volume_deltas(
        size=volume.size, volume_type_name=type_name).items() if '_' in key}
    if not deltas:
        return []
    return quota.reserve(db, ctx, conf=conf, project_id=volume.project_id, deltas=deltas)


def retype(conf, db, rpc, enforcer, ctx, *, volume, new_type: str,
           migration_policy: str | None) -> None:
    """`retyping` with the per-type quota reserved, then the scheduler finds the backend.

    :raises VolumeTypeNotFound, VolumeTypeNotFoundByName: (404); InvalidInput: multiattach
        of a volume that is not available; OverQuota: (413); InvalidVolume: (400, Cinder's
        retype message) — nothing is changed then.
    """
    target = db_types.get_by_name_or_id(db, ctx_project_id=ctx.project_id, is_admin=True,
                                        name_or_id=new_type)
    wants_multiattach = _multiattach(target)
    if volume.multiattach != wants_multiattach:
        if volume.status != states.Status.AVAILABLE:
            raise exception.InvalidInput(
                reason='Invalid volume_type passed, retypes affecting multiattach are only '
                       'allowed on available volumes, the specified volume however '
                       f'currently has a status of: {volume.status}.')
        if wants_multiattach:
            enforcer.authorize(ctx, volume_policy.MULTIATTACH_POLICY,
                               {'project_id': volume.project_id, 'user_id': volume.user_id})
    old_type = db_volumes.get_type_names(db, type_ids={volume.volume_type_id}).get(
        volume.volume_type_id)
    reservations = _type_reservations(db, ctx, conf, volume, target.name, 1)
    try:
        old_reservations = _type_reservations(db, ctx, conf, volume, old_type, -1)
    except Exception:
        quota.rollback(db, ctx, reservations)
        raise
    where = [Volume.volume_type_id != target.id]
    # NOTE(qos): Cinder's volume_qos_allows_retype: an in-use volume keeps its front-end
    # QoS (the hypervisor applies it); the qos specs compared are the types' own.
    if _frontend_qos(db, volume.volume_type_id) != _frontend_qos(db, target.id):
        where.append(Volume.status != states.Status.IN_USE)
    multiattach = volume.multiattach
    try:
        volume = db_volumes.MACHINE.begin(
            db, row_id=volume.id, action='retype', where=where,
            values={'multiattach': wants_multiattach})
    except exception.InvalidVolume:
        quota.rollback(db, ctx, reservations + old_reservations)
        raise exception.InvalidVolume(reason=RETYPE_REFUSED) from None
    spec = {'volume_id': volume.id, 'volume_type': _type_spec(target),
            'migration_policy': migration_policy, 'quota_reservations': reservations,
            'old_reservations': old_reservations,
            'volume_properties': _properties(volume, type_id=target.id)}
    zones = target.extra_specs.get('RESKEY:availability_zones')
    spec['availability_zones'] = ([z.strip() for z in zones.split(',') if z.strip()]
                                  if zones else [volume.availability_zone])
    casting.send(lambda: rpc.scheduler.retype(ctx, volume_id=volume.id, request_spec=spec),
                 undo=lambda: _undo_retype(db, volume, multiattach=multiattach,
                                           reservations=reservations + old_reservations),
                 resource='Volume', resource_id=volume.id, what='retype to the scheduler')
    LOG.info('Retype volume request issued successfully for %s.', volume.id)


def _undo_retype(db, volume, *, multiattach: bool, reservations: list[str]) -> bool:
    """One transaction: the volume back from `retyping` (its multiattach too) and the
    per-type reservations rolled back; False when it left `retyping` or a migration began
    (the scheduler took the retype up)."""
    with db.writer() as s:
        if not db_volumes.MACHINE.finish(
                db, row_id=volume.id, action='retype', status=PREVIOUS, session=s,
                values={'multiattach': multiattach},
                where=[Volume.migration_status.is_not_distinct_from(volume.migration_status)]):
            return False
        db_reservations.rollback(db, reservations=reservations, session=s)
    return True


def _properties(volume, *, type_id: str) -> dict:
    return {'size': volume.size, 'availability_zone': volume.availability_zone,
            'project_id': volume.project_id, 'user_id': volume.user_id,
            'volume_type_id': type_id, 'host': volume.host, 'cluster_name': volume.cluster_name,
            'multiattach': volume.multiattach}


def _live_service(conf, db, *, host: str | None, cluster_name: str | None):
    """The up, enabled volume service of *host* (or any of *cluster_name*'s), at backend
    level (Cinder's Service.get_by_id(is_up, disabled=False, backend_match_level='pool')).

    :raises InvalidHost: "No available service named '<name>'"
    """
    backend = (cluster_name or host).partition('#')[0]
    key = {'cluster_name': backend} if cluster_name else {'host': backend}
    for service in db_services.get_all(db, binary=db_services.VOLUME_BINARY, disabled=False,
                                       **key):
        if db_services.is_up(service, down_time=conf.service_down_time):
            return service
    raise exception.InvalidHost(reason=f"No available service named '{cluster_name or host}'")


def migrate_volume(conf, db, rpc, ctx, *, volume, host: str | None, cluster_name: str | None,
                   force_host_copy: bool, lock_volume: bool) -> None:
    """migration_status `starting` (and `maintenance` with *lock_volume*), then the
    scheduler checks the destination.

    :raises InvalidHost: no such live service; InvalidVolume: (Cinder's migrate message)
    """
    service = _live_service(conf, db, host=host, cluster_name=cluster_name)
    # NOTE(cluster): as Cinder, a host in a cluster is migrated to as its cluster.
    cluster_name = service.cluster_name
    before = volume.migration_status
    volume = db_migrations.begin(db, volume_id=volume.id, host=host, cluster_name=cluster_name,
                                 lock_volume=lock_volume)
    vtype = db_types.get(db, type_id=volume.volume_type_id)
    spec = {'volume_id': volume.id, 'volume_type': _type_spec(vtype),
            'volume_properties': _properties(volume, type_id=vtype.id)}
    casting.send(lambda: rpc.scheduler.migrate_volume(
        ctx, volume_id=volume.id, backend=cluster_name or host,
        force_host_copy=force_host_copy, request_spec=spec),
        undo=lambda: db_migrations.undo_begin(db, volume_id=volume.id, migration_status=before),
        resource='Volume', resource_id=volume.id, what='migrate_volume to the scheduler')
    LOG.info('Migrate volume request issued successfully for %s.', volume.id)


def migrate_volume_completion(db, rpc, ctx, *, volume, new_volume, error: bool) -> str:
    """Nova's callback after swapping a server onto *new_volume*; the id that stays.

    :raises InvalidVolume: (Cinder's texts) neither is mid-migration in this pairing.
    """
    if not (volume.migration_status or new_volume.migration_status):
        # NOTE(cinder): Cinder re-attaches outside a migration (its legacy attach calls);
        # with nothing migrating there is nothing to swap here.
        return new_volume.id
    if not volume.migration_status:
        raise exception.InvalidVolume(reason='Source volume not mid-migration.')
    if not new_volume.migration_status:
        raise exception.InvalidVolume(reason='Destination volume not mid-migration.')
    expected = migration_states.target_of(volume.id)
    if new_volume.migration_status != expected:
        raise exception.InvalidVolume(
            reason=f'Destination has migration_status {new_volume.migration_status}, '
                   f'expected {expected}.')
    LOG.info('Migrate volume completion issued successfully for %s.', volume.id)
    return rpc.volume.migrate_volume_completion(
        ctx, volume_id=volume.id, target_id=new_volume.id, error=error, host=volume.host,
        cluster_name=volume.cluster_name)
