"""Snapshot races on real PostgreSQL and MariaDB: a snapshot's insert, a volume's delete and
a revert all take the volume's row lock, so exactly one of two racing requests wins and the
loser leaves nothing behind (no row, no quota)."""

import threading
import time
import uuid

import pytest
import sqlalchemy as sa

from cinderlike import context, exception
from cinderlike.api.operations import snapshots as snapshot_ops
from cinderlike.api.operations import volumes as volume_ops
from cinderlike.db import snapshots as db_snapshots
from cinderlike.db import volume_types as db_types
from cinderlike.db import volumes as db_volumes
from cinderlike.db.models import QuotaUsage, Snapshot, Volume
from tests.fixtures import daemons
from tests.fixtures.race import race, split


class Casts:
    """The API's rpc bundle, recording casts."""

    def __init__(self):
        self.scheduler = self.volume = self
        self.sent = []

    def __getattr__(self, method):
        return lambda ctxt, **kwargs: self.sent.append(method)


@pytest.fixture(scope='module')
def conf():
    return daemons.make_conf()


@pytest.fixture
def project():
    """A project of the test's own: the module's tests share one database."""
    return uuid.uuid4().hex


def _ctx(project):
    return context.RequestContext(user_id='u1', project_id=project, is_admin=False)


def _volume(db, project):
    vtype = db_types.get_by_name(db, name='__DEFAULT__')
    return db_volumes.create(db, values={
        'status': 'available', 'size': 1, 'host': 'node@fake#pool', 'project_id': project,
        'volume_type_id': vtype.id, 'attach_status': 'detached'})


def _live_snapshots(db, volume_id) -> int:
    return len(db_snapshots.of_volume(db, volume_id=volume_id))


def _snapshot_usage(db, project) -> tuple[int, int]:
    with db.reader() as s:
        row = s.execute(sa.select(QuotaUsage.in_use, QuotaUsage.reserved).where(
            QuotaUsage.project_id == project, QuotaUsage.resource == 'snapshots')).first()
    return tuple(row) if row else (0, 0)


def _create(conf, db, project, volume_id):
    return lambda: snapshot_ops.create(conf, db, Casts(), _ctx(project), volume_id=volume_id)


@pytest.mark.parametrize('attempt', range(8))
def test_volume_delete_against_snapshot_create_one_wins(conf, db, project, attempt):
    volume = _volume(db, project)
    before = _snapshot_usage(db, project)
    deleted, created = race(
        lambda: volume_ops.delete(db, Casts(), _ctx(project), volume_id=volume.id),
        _create(conf, db, project, volume.id))
    status = db_volumes.get(db, volume_id=volume.id).status
    if isinstance(created, Exception):
        assert deleted is None and status == 'deleting'
        assert isinstance(created, exception.InvalidVolume)
        assert _live_snapshots(db, volume.id) == 0 and _snapshot_usage(db, project) == before
    else:
        assert isinstance(deleted, exception.InvalidVolume) and status == 'available'
        assert _live_snapshots(db, volume.id) == 1
        assert _snapshot_usage(db, project) == (before[0] + 1, 0)


def test_a_delete_that_waited_for_the_volume_sees_the_snapshot_its_holder_inserted(
        conf, db, project):
    """The delete's guard (no snapshots) is a subquery of its UPDATE, and PostgreSQL
    re-checks a row an UPDATE waited for without running its subqueries again: the delete
    locks the row with its first read, so its UPDATE, a later statement, sees what the
    lock's holder committed meanwhile."""
    volume = _volume(db, project)
    inserted, outcome = threading.Event(), {}

    def holder():
        with db.writer() as s:
            s.execute(sa.select(Volume.id).where(Volume.id == volume.id).with_for_update())
            s.add(Snapshot(id=str(uuid.uuid4()), volume_id=volume.id, project_id=project,
                           status='creating', volume_size=1,
                           volume_type_id=volume.volume_type_id))
            s.flush()
            inserted.set()
            time.sleep(0.5)  # the delete is waiting for the volume's row by now

    def deleter():
        inserted.wait(10)
        try:
            volume_ops.delete(db, Casts(), _ctx(project), volume_id=volume.id)
        except exception.InvalidVolume as refused:
            outcome['refused'] = refused
    threads = [threading.Thread(target=holder), threading.Thread(target=deleter)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert 'refused' in outcome
    assert db_volumes.get(db, volume_id=volume.id).status == 'available'


@pytest.mark.parametrize('attempt', range(8))
def test_revert_against_a_new_snapshot_one_wins(conf, db, project, attempt):
    volume = _volume(db, project)
    first = _create(conf, db, project, volume.id)()
    db_snapshots.MACHINE.reset(db, row_id=first.id, values={'status': 'available'})
    reverted, created = race(
        lambda: volume_ops.revert(db, Casts(), _ctx(project), volume_id=volume.id,
                                  snapshot_id=first.id),
        _create(conf, db, project, volume.id))
    status = db_volumes.get(db, volume_id=volume.id).status
    if isinstance(created, Exception):
        # The revert held the lock first: the volume is reverting, no newer snapshot.
        assert reverted is None and status == 'reverting'
        assert db_snapshots.get(db, snapshot_id=first.id).status == 'restoring'
        assert _live_snapshots(db, volume.id) == 1
    else:
        # The new snapshot won: the revert's snapshot is no longer the latest.
        assert isinstance(reverted, exception.Invalid) and status == 'available'
        assert 'not the latest' in reverted.msg
        assert db_snapshots.get(db, snapshot_id=first.id).status == 'available'
        assert _live_snapshots(db, volume.id) == 2


@pytest.mark.parametrize('attempt', range(4))
def test_two_snapshot_deletes_one_wins(conf, db, project, attempt):
    volume = _volume(db, project)
    snapshot = _create(conf, db, project, volume.id)()
    db_snapshots.MACHINE.reset(db, row_id=snapshot.id, values={'status': 'available'})
    casts = Casts()
    winners, losers = split(race(
        *[lambda: snapshot_ops.delete(db, casts, _ctx(project), snapshot_id=snapshot.id)] * 2))
    assert len(winners) == 1 and len(losers) == 1
    assert isinstance(losers[0], exception.InvalidSnapshot)
    assert casts.sent == ['delete_snapshot']
    with db.reader() as s:
        assert s.get(Snapshot, snapshot.id).status == 'deleting'
