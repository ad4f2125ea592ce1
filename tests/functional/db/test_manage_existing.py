"""Manage/unmanage races on real PostgreSQL and MariaDB: unmanage is the delete's CAS (one of
an unmanage and a delete wins; a snapshot created meanwhile stops it), and a manage's finish
moves status, quota and the pool's claim together or not at all."""

import uuid

import pytest
import sqlalchemy as sa

from cinderlike import context, exception, quota
from cinderlike.api.operations import manageable as manage_ops
from cinderlike.api.operations import snapshots as snapshot_ops
from cinderlike.api.operations import volumes as volume_ops
from cinderlike.db import snapshots as db_snapshots
from cinderlike.db import volume_types as db_types
from cinderlike.db import volumes as db_volumes
from cinderlike.db.models import Pool, QuotaUsage
from cinderlike.volume import manage_existing
from tests.fixtures import daemons
from tests.fixtures.race import race, split
from tests.functional.db.test_snapshots import Casts


@pytest.fixture(scope='module')
def conf():
    return daemons.make_conf()


@pytest.fixture
def project():
    return uuid.uuid4().hex


def _ctx(project, admin=False):
    return context.RequestContext(user_id='u1', project_id=project, is_admin=admin)


def _volume(db, project, status='available', host=None):
    vtype = db_types.get_by_name(db, name='__DEFAULT__')
    return db_volumes.create(db, values={
        'status': status, 'size': 1 if status != 'managing' else 0,
        'host': host or f'node-{project}@fake#pool', 'project_id': project,
        'volume_type_id': vtype.id, 'attach_status': 'detached',
        'use_quota': status != 'managing'})


@pytest.mark.parametrize('attempt', range(6))
def test_unmanage_against_delete_one_wins(conf, db, project, attempt):
    volume = _volume(db, project)
    casts = Casts()
    unmanaged, deleted = race(
        lambda: manage_ops.unmanage_volume(conf, db, casts, _ctx(project), volume_id=volume.id),
        lambda: volume_ops.delete(db, casts, _ctx(project), volume_id=volume.id))
    winners, losers = split([unmanaged, deleted])
    assert len(winners) == 1 and isinstance(losers[0], exception.InvalidVolume)
    status = db_volumes.get(db, volume_id=volume.id).status
    assert status == ('unmanaging' if unmanaged is None else 'deleting')
    assert casts.sent == ['delete_volume']


@pytest.mark.parametrize('attempt', range(6))
def test_unmanage_against_a_snapshot_create_one_wins(conf, db, project, attempt):
    volume = _volume(db, project)
    unmanaged, created = race(
        lambda: manage_ops.unmanage_volume(conf, db, Casts(), _ctx(project),
                                           volume_id=volume.id),
        lambda: snapshot_ops.create(conf, db, Casts(), _ctx(project), volume_id=volume.id))
    status = db_volumes.get(db, volume_id=volume.id).status
    live = db_snapshots.of_volume(db, volume_id=volume.id)
    if isinstance(created, Exception):
        assert unmanaged is None and status == 'unmanaging' and live == []
    else:
        assert isinstance(unmanaged, exception.InvalidVolume) and status == 'available'
        assert [s.id for s in live] == [created.id]


class _Manager:
    def __init__(self, conf, db):
        self.conf, self.db = conf, db


def _in_use(db, project, resource) -> int:
    with db.reader() as s:
        return s.scalar(sa.select(QuotaUsage.in_use).where(
            QuotaUsage.project_id == project, QuotaUsage.resource == resource)) or 0


def _claimed(db, pool) -> float:
    with db.reader() as s:
        return s.scalar(sa.select(Pool.allocated_capacity_gb).where(Pool.name == pool))


@pytest.mark.parametrize('attempt', range(6))
def test_a_manage_finish_against_a_force_delete_moves_quota_and_claim_together(
        conf, db, project, attempt):
    pool = f'node-{project}@fake#pool'
    with db.writer() as s:
        s.add(Pool(name=pool, backend=pool.partition('#')[0], allocated_capacity_gb=0))
    volume = _volume(db, project, status='managing', host=pool)
    ctx = _ctx(project)
    reservations = quota.reserve(db, ctx, conf=conf, project_id=project,
                                 deltas=quota.volume_deltas(size=3, volume_type_name=None))

    def finish():
        try:
            manage_existing.Finish().execute(_Manager(conf, db), ctx, volume, 3, reservations,
                                             {})
        except exception.VolumeMovedOn:
            quota.rollback(db, ctx, reservations)  # the flow's ReserveQuota revert
            raise
    finished, deleted = race(
        finish, lambda: volume_ops.delete(db, Casts(), _ctx(project, admin=True),
                                          volume_id=volume.id, force=True))
    assert deleted is None
    assert db_volumes.get(db, volume_id=volume.id).status == 'deleting'
    if isinstance(finished, Exception):
        assert isinstance(finished, exception.VolumeMovedOn)
        assert (_in_use(db, project, 'volumes'), _claimed(db, pool)) == (0, 0)
    else:
        assert (_in_use(db, project, 'volumes'), _in_use(db, project, 'gigabytes'),
                _claimed(db, pool)) == (1, 3, 3)
