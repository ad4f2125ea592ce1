"""backup/recovery.py sweep_lost: backups left `creating`, `restoring` or `deleting` that no
service took up within lost_operation_timeout (a lost cast) end as a backup service's restart
would end them, with a user message; a held or recent one is left alone, and a delete is
resumed only by its own host."""

import datetime

import pytest
import sqlalchemy as sa

from cinderlike import context
from cinderlike.backup import recovery
from cinderlike.db import backups as db_backups
from cinderlike.db import workers as db_workers
from cinderlike.db.models import Backup, utcnow
from tests.unit.backup.test_operations import _backup, _no_workers, _volume
from tests.unit.volume.conftest import event_ids, row

pytestmark = pytest.mark.qemu_img

CTX = context.RequestContext(user_id='u1', project_id='p1', is_admin=True)
TIMEOUT = 300


@pytest.fixture
def sweeper(backup_mgr):
    backup_mgr.conf.set_override('lost_operation_timeout', TIMEOUT)
    return backup_mgr


def _lost(db, volume, *, host=None, age=TIMEOUT + 5):
    """A `creating` backup the API inserted, whose cast reached no service, *age* s ago."""
    backup = db_backups.create(db, metadata=None, source_action='backup', reserve=lambda s: [],
                               values={'volume_id': volume.id, 'project_id': 'p1',
                                       'user_id': 'u1', 'size': 1, 'host': host,
                                       'availability_zone': 'nova'})
    _age(db, backup.id, age)
    return backup


def _age(db, backup_id, seconds):
    when = utcnow() - datetime.timedelta(seconds=seconds)
    with db.writer() as s:
        s.execute(sa.update(Backup).where(Backup.id == backup_id)
                  .values(created_at=when, updated_at=when))


def test_a_lost_create_ends_error_with_its_volume_back_and_a_message(sweeper, db):
    volume, _path = _volume(sweeper, db)
    backup = _lost(db, volume)
    assert row(db, volume.id).status == 'backing-up'
    assert recovery.sweep_lost(sweeper, CTX) == 1
    assert db_backups.get(db, backup_id=backup.id).status == 'error'
    assert row(db, volume.id).status == 'available' and _no_workers(db)
    assert event_ids(db) == ['VOLUME_VOLUME_BACKUP_013_001']


def test_a_recent_or_held_backup_is_left_alone(sweeper, db):
    volume, _path = _volume(sweeper, db)
    recent = _lost(db, volume, age=TIMEOUT - 60)
    other, _path = _volume(sweeper, db)
    held = _lost(db, other)
    db_workers.begin(db, resource_type='Backup', resource_id=held.id, status='creating',
                     service_id=sweeper.service_id)
    assert recovery.sweep_lost(sweeper, CTX) == 0
    assert {db_backups.get(db, backup_id=b.id).status for b in (recent, held)} == {'creating'}


def test_a_lost_restore_leaves_the_backup_available_and_the_volume_error_restoring(
        sweeper, db):
    source, _path = _volume(sweeper, db)
    done = _backup(sweeper, db, source)
    target, _path = _volume(sweeper, db)
    db_backups.begin_restore(db, backup_id=done.id, volume_id=target.id, values={})
    _age(db, done.id, TIMEOUT + 5)
    assert recovery.sweep_lost(sweeper, CTX) == 1
    assert db_backups.get(db, backup_id=done.id).status == 'available'
    assert row(db, target.id).status == 'error_restoring' and _no_workers(db)
    assert event_ids(db) == ['VOLUME_VOLUME_BACKUP_015_001']


def test_a_lost_delete_is_resumed_by_its_own_host_only(sweeper, db):
    volume, _path = _volume(sweeper, db)
    mine = _backup(sweeper, db, volume)
    theirs = _backup(sweeper, db, volume)
    for backup, host in ((mine, sweeper.host), (theirs, 'elsewhere')):
        with db.writer() as s:
            s.execute(sa.update(Backup).where(Backup.id == backup.id)
                      .values(status='deleting', host=host))
        _age(db, backup.id, TIMEOUT + 5)
    assert recovery.sweep_lost(sweeper, CTX) == 1
    assert db_backups.get_any(db, backup_id=mine.id).deleted
    assert db_backups.get(db, backup_id=theirs.id).status == 'deleting'
