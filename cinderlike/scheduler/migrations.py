"""cinderlike-scheduler: where a retyped or migrated volume goes (Cinder's scheduler retype and
migrate_volume).

A retype that stays on its pool goes to its backend's driver; a move claims the size on the
destination pool and inserts the destination row in one transaction (db/migrations_status
place_target, the scheduler's claim), then hands the migration to the source's backend.
"""

from oslo_log import log as logging

from cinderlike import exception, quota
from cinderlike.db import migrations_status as db_migrations
from cinderlike.db import pools as db_pools
from cinderlike.db import volumes as db_volumes
from cinderlike.scheduler.flows import create_volume

LOG = logging.getLogger(__name__)


def _candidates(scheduler, ctx, chosen, request_spec, filter_properties):
    """*chosen* first, then the other passing pools best first (a full claim moves on)."""
    yield chosen
    for candidate in scheduler.filter_scheduler.weighed_candidates(
            scheduler.host_manager.pools(fresh_claims=True), request_spec,
            dict(filter_properties or {}), ctx):
        if candidate.obj.backend_id != chosen.backend_id:
            yield candidate.obj


def _place(scheduler, ctx, volume, pools, request_spec, *, new_type_id):
    """Claim on the first of *pools* with room and insert the destination row there.

    :raises NoValidBackend: when every claim failed; InvalidVolume: the source moved on.
    """
    for pool in pools:
        target = db_migrations.place_target(
            scheduler.db, source=volume, pool=pool.backend_id, host=pool.volume_host,
            cluster_name=pool.volume_cluster_name,
            availability_zone=pool.availability_zone or volume.availability_zone,
            volume_type_id=new_type_id or volume.volume_type_id,
            max_gb=create_volume.thick_ceiling(pool, request_spec))
        if target is not None:
            scheduler.host_manager.consumed(pool, volume.size)
            return target
    raise exception.NoValidBackend(
        reason=f'Cannot place volume {volume.id}: no room on the destination.')


def migrate_volume(scheduler, ctx, *, volume_id, backend, force_host_copy, request_spec):
    """os-migrate_volume: *backend* (host or cluster) must pass the filters; then the
    destination is placed and the source's backend copies."""
    volume = db_volumes.get(scheduler.db, volume_id=volume_id)
    try:
        pool = scheduler.filter_scheduler.backend_passes_filters(
            scheduler.host_manager.pools(fresh_claims=True), backend, request_spec, {}, ctx)
        target = _place(scheduler, ctx, volume, [pool], request_spec, new_type_id=None)
    except exception.NoValidBackend as error:
        _failed(scheduler, ctx, volume, request_spec, error, method='migrate_volume_to_host')
        return
    except exception.InvalidVolume as error:
        LOG.info('Volume %s: migration not placed: %s', volume_id, error)
        return
    scheduler.volume_api.migrate_volume(
        ctx, volume_id=volume.id, host=volume.host, cluster_name=volume.cluster_name,
        target_id=target.id, force_host_copy=force_host_copy, new_type_id=None,
        reservations=[])


def retype(scheduler, ctx, *, volume_id, request_spec, filter_properties=None):
    """os-retype: the volume's own pool when it passes with the new type; else, with
    migration_policy on-demand, a migration to the best other pool."""
    volume = db_volumes.get(scheduler.db, volume_id=volume_id)
    new_type = request_spec['volume_type']
    reservations = list(request_spec.get('quota_reservations') or []) + list(
        request_spec.get('old_reservations') or [])
    policy = request_spec.get('migration_policy') or 'never'
    pools = scheduler.host_manager.pools(fresh_claims=True)
    try:
        pool = scheduler.filter_scheduler.find_retype_backend(
            pools, request_spec, filter_properties, ctx, migration_policy=policy)
    except exception.NoValidBackend as error:
        _retype_failed(scheduler, ctx, volume, request_spec, reservations, error)
        return
    if pool.backend_id == db_pools.pool_of(volume) or '#' not in db_pools.pool_of(volume):
        scheduler.volume_api.retype(
            ctx, volume_id=volume.id, host=volume.host, cluster_name=volume.cluster_name,
            new_type_id=new_type['id'], reservations=reservations)
        return
    try:
        volume = db_migrations.begin(scheduler.db, volume_id=volume.id, host=pool.volume_host,
                                     cluster_name=pool.volume_cluster_name, retype=True)
    except exception.InvalidVolume as error:
        # NOTE(cinder): Cinder's volume manager refuses a retype that must migrate a
        # volume with snapshots or replicas in the same way: back to where it was.
        _retype_failed(scheduler, ctx, volume, request_spec, reservations, error)
        return
    try:
        target = _place(scheduler, ctx, volume,
                        _candidates(scheduler, ctx, pool, request_spec, filter_properties),
                        request_spec, new_type_id=new_type['id'])
    except exception.NoValidBackend as error:
        _failed(scheduler, ctx, volume, request_spec, error, method='retype',
                rollback=reservations)
        return
    scheduler.volume_api.migrate_volume(
        ctx, volume_id=volume.id, host=volume.host, cluster_name=volume.cluster_name,
        target_id=target.id, force_host_copy=False, new_type_id=new_type['id'],
        reservations=reservations)


def _retype_failed(scheduler, ctx, volume, request_spec, reservations, error):
    """Cinder's _retype_volume_set_error: reservations back, the volume where it was."""
    LOG.warning('Cannot retype volume %(id)s: %(error)s', {'id': volume.id, 'error': error})
    quota.rollback(scheduler.db, ctx, reservations)
    db_volumes.MACHINE.undo_begin(scheduler.db, row_id=volume.id, action='retype')
    create_volume.notify_error(scheduler.notifier, ctx, method='retype', volume_id=volume.id,
                               request_spec=request_spec, status=volume.previous_status,
                               reason=error)


def _failed(scheduler, ctx, volume, request_spec, error, *, method, rollback=()):
    """Cinder's _migrate_volume_set_error: migration_status error, the volume where it was."""
    LOG.warning('Cannot migrate volume %(id)s: %(error)s', {'id': volume.id, 'error': error})
    db_migrations.fail_unplaced(scheduler.db, volume_id=volume.id, rollback=rollback)
    create_volume.notify_error(scheduler.notifier, ctx, method=method, volume_id=volume.id,
                               request_spec=request_spec, status=volume.previous_status,
                               reason=error)
