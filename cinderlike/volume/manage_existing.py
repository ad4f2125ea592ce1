"""cinderlike-volume: adopt backend objects (Cinder's manage_existing and
manage_existing_snapshot) and list those that could be adopted.

A managed volume consumes its quota and its pool's capacity claim only once the driver
adopted the object: both are written with its `available` in one transaction, so a volume
that ends `error_managing` holds neither (its `use_quota` stays False until then).
"""

from oslo_log import log as logging
from taskflow import task

from cinderlike import exception, flow, quota
from cinderlike.db import pools as db_pools
from cinderlike.db import snapshots as db_snapshots
from cinderlike.db import volumes as db_volumes
from cinderlike.db.models import utcnow
from cinderlike.drivers.volume import base
from cinderlike.states import snapshots as snapshot_states
from cinderlike.states.volumes import Status

LOG = logging.getLogger(__name__)


def _type_name(manager, row) -> str | None:
    return db_volumes.get_type_names(manager.db, type_ids={row.volume_type_id}).get(
        row.volume_type_id)


class GetSize(task.Task):
    """The object's size from the driver; on any failure of the flow, `error_managing`."""

    default_provides = 'size'

    def execute(self, manager, volume, ref):
        manager.require_driver()
        return manager.driver.manage_existing_get_size(base.VolumeRef.of(volume), ref)

    def revert(self, manager, volume, **kwargs):
        if db_volumes.MACHINE.finish(manager.db, row_id=volume.id, action='manage',
                                     error=True):
            LOG.error('Volume %s: manage failed', volume.id)


class ReserveQuota(task.Task):
    """volumes and gigabytes (and per type) for the size found; rolled back on failure."""

    default_provides = 'reservations'

    def execute(self, manager, ctx, volume, size):
        deltas = quota.volume_deltas(size=size, volume_type_name=_type_name(manager, volume))
        return quota.reserve(manager.db, ctx, conf=manager.conf,
                             project_id=volume.project_id, deltas=deltas)

    def revert(self, manager, ctx, result, **kwargs):
        if isinstance(result, list):
            quota.rollback(manager.db, ctx, result)


class Adopt(task.Task):
    """The driver makes the object the volume's (the file driver renames it)."""

    default_provides = 'update'

    def execute(self, manager, volume, ref, size):
        return manager.driver.manage_existing(base.VolumeRef.of(volume, size=size), ref) or {}


class Finish(task.Task):
    """`available` with its size, quota committed and capacity counted, in one transaction.

    :raises VolumeMovedOn: the row left `managing` meanwhile (reset or deleted).
    """

    def execute(self, manager, ctx, volume, size, reservations, update):
        values = dict(update, size=size, launched_at=utcnow(), use_quota=True)
        with manager.db.writer() as s:
            if not db_volumes.MACHINE.finish(manager.db, row_id=volume.id, action='manage',
                                             values=values, session=s):
                raise exception.VolumeMovedOn(reason=f'volume {volume.id} left managing')
            quota.commit(manager.db, ctx, reservations, session=s)
            # NOTE(capacity): the data is on the backend already, so it is counted against
            # the pool whatever the pool's limit (the scheduler filtered with size 0).
            db_pools.count_existing(manager.db, pool=db_pools.pool_of(volume), size_gb=size,
                                    session=s)


FLOW = flow.LinearFlow('volume_manage_existing_manager', GetSize(), ReserveQuota(), Adopt(),
                       Finish())


def manage_existing(manager, ctx, *, volume_id: str, ref: dict) -> bool:
    """Adopt the backend object *ref* as the `managing` volume; True when it did."""
    volume = db_volumes.get(manager.db, volume_id=volume_id)
    if volume.status != Status.MANAGING:
        LOG.warning('Volume %s is %s, not managing; nothing to do', volume_id, volume.status)
        return False
    manager.notifier.info(ctx, volume, 'manage_existing.start')
    try:
        FLOW.run({'manager': manager, 'ctx': ctx, 'volume': volume, 'ref': ref},
                 timer=manager.flow_timer())
    except Exception:
        LOG.exception('Volume %s: manage of %s failed on %s', volume_id, ref, manager.host)
        return False
    manager.notifier.info(ctx, db_volumes.get(manager.db, volume_id=volume_id),
                          'manage_existing.end')
    return True


def manage_existing_snapshot(manager, ctx, *, snapshot_id: str, ref: dict) -> bool:
    """Adopt the backend object *ref* as the `creating` snapshot; True when it did.

    The API committed the quota of the volume's size; a snapshot of another size has the
    difference of gigabytes reserved before the driver acts and committed with `available`.
    Any failure leaves it `error` (its quota is given back when it is deleted).
    """
    snapshot = db_snapshots.get(manager.db, snapshot_id=snapshot_id)
    volume = db_volumes.get(manager.db, volume_id=snapshot.volume_id)
    reservations = []
    try:
        manager.require_driver()
        ref_of = base.SnapshotRef.of(snapshot, volume)
        size = manager.driver.manage_existing_snapshot_get_size(ref_of, ref)
        if size != snapshot.volume_size and not manager.conf.no_snapshot_gb_quota:
            deltas = quota.volume_deltas(size=size - snapshot.volume_size,
                                         volume_type_name=_type_name(manager, snapshot))
            reservations = quota.reserve(
                manager.db, ctx, conf=manager.conf, project_id=snapshot.project_id,
                deltas={k: v for k, v in deltas.items() if k.startswith('gigabytes')})
        update = manager.driver.manage_existing_snapshot(
            base.SnapshotRef(id=snapshot.id, volume=ref_of.volume, volume_size=size), ref)
    except Exception:
        LOG.exception('Snapshot %s: manage of %s failed on %s', snapshot_id, ref, manager.host)
        quota.rollback(manager.db, ctx, reservations)
        db_snapshots.MACHINE.finish(manager.db, row_id=snapshot_id, action='create', error=True)
        return False
    values = dict(update or {}, volume_size=size, progress=snapshot_states.DONE_PROGRESS)
    with manager.db.writer() as s:
        done = db_snapshots.MACHINE.finish(manager.db, row_id=snapshot_id, action='create',
                                           values=values, session=s)
        (quota.commit if done else quota.rollback)(manager.db, ctx, reservations, session=s)
    return done


def get_manageable_volumes(manager, ctx, *, marker, limit, offset, sort_keys,
                           sort_dirs) -> list[dict]:
    """The driver's manageable volumes, this backend's own marked `already managed`."""
    manager.require_driver()
    mine = [base.VolumeRef.of(v) for v in db_volumes.of_backend(
        manager.db, host=manager.host, cluster_name=manager.cluster_name)]
    return manager.driver.get_manageable_volumes(
        mine, marker=marker, limit=limit, offset=offset, sort_keys=sort_keys,
        sort_dirs=sort_dirs)


def get_manageable_snapshots(manager, ctx, *, marker, limit, offset, sort_keys,
                             sort_dirs) -> list[dict]:
    """The driver's manageable snapshots, this backend's own marked `already managed`."""
    manager.require_driver()
    mine = [base.SnapshotRef.of(s, v) for s, v in db_snapshots.of_backend(
        manager.db, host=manager.host, cluster_name=manager.cluster_name)]
    return manager.driver.get_manageable_snapshots(
        mine, marker=marker, limit=limit, offset=offset, sort_keys=sort_keys,
        sort_dirs=sort_dirs)
