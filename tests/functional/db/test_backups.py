"""Backup races on real PostgreSQL and MariaDB: each status change is a compare-and-swap
(the backup's, its volume's, its parent's row lock), so of two racing requests exactly one
wins and the loser leaves nothing behind (no row, no status change, no quota)."""

import uuid

import pytest
import sqlalchemy as sa

from cinderlike import context, exception
from cinderlike.api.operations import backups as backup_ops
from cinderlike.db import backups as db_backups
from cinderlike.db import services as db_services
from cinderlike.db import volume_types as db_types
from cinderlike.db import volumes as db_volumes
from cinderlike.db.models import Backup, QuotaUsage
from tests.fixtures import daemons
from tests.fixtures.race import race, split


class Casts:
    """The API's rpc bundle, recording casts."""

    def __init__(self):
        self.scheduler = self.volume = self.backup = self
        self.sent = []

    def __getattr__(self, method):
        return lambda ctxt, **kwargs: self.sent.append(method)


@pytest.fixture(scope='module')
def conf():
    return daemons.make_conf()


@pytest.fixture(scope='module', autouse=True)
def backup_service(db):
    """A live backup service for the operations that pick one."""
    return db_services.register(db, host=f'bk-{uuid.uuid4().hex[:6]}', binary='cinder-backup',
                                topic='cinder-backup', availability_zone='nova')


@pytest.fixture
def project():
    return uuid.uuid4().hex


def _ctx(project):
    return context.RequestContext(user_id='u1', project_id=project, is_admin=False)


def _volume(db, project, size=1):
    vtype = db_types.get_by_name(db, name='__DEFAULT__')
    return db_volumes.create(db, values={
        'status': 'available', 'size': size, 'host': 'node@fake#pool', 'project_id': project,
        'volume_type_id': vtype.id, 'attach_status': 'detached',
        'availability_zone': 'nova'})


def _create(conf, db, project, volume, casts=None, **options):
    def call():
        return backup_ops.create(
            conf, db, casts or Casts(), _ctx(project), volume=db_volumes.get(
                db, volume_id=volume.id), name=None, description=None, container=None,
            incremental=options.get('incremental', False), force=False, snapshot_id=None,
            metadata=None, availability_zone=None)
    return call


def _available_backup(conf, db, project, volume):
    backup = _create(conf, db, project, volume)()
    db_volumes.MACHINE.finish(db, row_id=volume.id, action='backup')
    db_backups.MACHINE.finish(db, row_id=backup.id, action='create')
    return db_backups.get(db, backup_id=backup.id)


def _backups_of(db, volume_id) -> list[Backup]:
    with db.reader() as s:
        return list(s.scalars(sa.select(Backup).where(Backup.volume_id == volume_id,
                                                      Backup.deleted.is_(False))))


def _usage(db, project) -> dict[str, tuple[int, int]]:
    with db.reader() as s:
        return {r.resource: (r.in_use, r.reserved) for r in s.scalars(sa.select(QuotaUsage).where(
            QuotaUsage.project_id == project, QuotaUsage.resource.like('backup%')))}


@pytest.mark.parametrize('attempt', range(6))
def test_two_creates_on_one_volume_one_wins(conf, db, project, attempt):
    volume = _volume(db, project, size=2)
    casts = Casts()
    winners, losers = split(race(_create(conf, db, project, volume, casts),
                                 _create(conf, db, project, volume, casts)))
    assert len(winners) == 1 and len(losers) == 1
    assert isinstance(losers[0], exception.InvalidVolume)
    assert [b.id for b in _backups_of(db, volume.id)] == [winners[0].id]
    assert db_volumes.get(db, volume_id=volume.id).status == 'backing-up'
    assert _usage(db, project) == {'backups': (1, 0), 'backup_gigabytes': (2, 0)}
    assert casts.sent == ['create_backup']


@pytest.mark.parametrize('attempt', range(6))
def test_two_restores_of_one_backup_one_wins(conf, db, project, attempt):
    backup = _available_backup(conf, db, project, _volume(db, project))
    targets = [_volume(db, project), _volume(db, project)]
    casts = Casts()
    results = race(*[lambda t=t: backup_ops.restore(conf, db, casts, _ctx(project),
                                                    backup_id=backup.id, volume_id=t.id)
                     for t in targets])
    winners, losers = split(results)
    assert len(winners) == 1 and len(losers) == 1
    assert isinstance(losers[0], exception.InvalidBackup)
    won = targets[results.index(winners[0])]
    statuses = {t.id: db_volumes.get(db, volume_id=t.id).status for t in targets}
    assert sorted(statuses.values()) == ['available', 'restoring-backup']
    assert statuses[won.id] == 'restoring-backup'
    row = db_backups.get(db, backup_id=backup.id)
    assert (row.status, row.restore_volume_id) == ('restoring', won.id)
    assert casts.sent == ['restore_backup']


@pytest.mark.parametrize('attempt', range(6))
def test_delete_against_restore_one_wins(conf, db, project, attempt):
    backup = _available_backup(conf, db, project, _volume(db, project))
    target = _volume(db, project)
    casts = Casts()
    deleted, restored = race(
        lambda: backup_ops.delete(conf, db, casts, _ctx(project), backup_id=backup.id),
        lambda: backup_ops.restore(conf, db, casts, _ctx(project), backup_id=backup.id,
                                   volume_id=target.id))
    status = db_backups.get(db, backup_id=backup.id).status
    volume_status = db_volumes.get(db, volume_id=target.id).status
    if isinstance(restored, Exception):
        assert isinstance(restored, exception.InvalidBackup) and deleted is None
        assert (status, volume_status) == ('deleting', 'available')
        assert casts.sent == ['delete_backup']
    else:
        assert isinstance(deleted, exception.InvalidBackup)
        assert (status, volume_status) == ('restoring', 'restoring-backup')
        assert casts.sent == ['restore_backup']


@pytest.mark.parametrize('attempt', range(6))
def test_incremental_against_its_parents_delete_one_wins(conf, db, project, attempt):
    volume = _volume(db, project)
    parent = _available_backup(conf, db, project, volume)
    casts = Casts()
    deleted, created = race(
        lambda: backup_ops.delete(conf, db, casts, _ctx(project), backup_id=parent.id),
        _create(conf, db, project, volume, casts, incremental=True))
    status = db_backups.get(db, backup_id=parent.id).status
    if isinstance(created, Exception):
        assert isinstance(created, exception.InvalidBackup) and deleted is None
        assert status == 'deleting' and len(_backups_of(db, volume.id)) == 1
        assert db_volumes.get(db, volume_id=volume.id).status == 'available'
        assert _usage(db, project) == {'backups': (1, 0), 'backup_gigabytes': (1, 0)}
    else:
        assert isinstance(deleted, exception.InvalidBackup)
        assert 'Incremental backups exist' in deleted.msg
        assert status == 'available' and created.parent_id == parent.id
        assert db_backups.get(db, backup_id=parent.id).num_dependent_backups == 1
