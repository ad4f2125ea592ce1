"""scheduler/manager.py create_backup: which backup service gets a backup, and what a backup
nobody can take ends as."""

import pytest

from cinderlike import context
from cinderlike.db import backups as db_backups
from cinderlike.db import messages as db_messages
from cinderlike.db import volume_types as db_types
from cinderlike.db import volumes as db_volumes
from cinderlike.scheduler import manager as scheduler_manager
from tests.fixtures import daemons
from tests.unit.api.conftest import add_service
from tests.unit.scheduler import placing

CTX = context.RequestContext(user_id='u1', project_id='p1', is_admin=True)


@pytest.fixture
def db():
    database = daemons.make_db()
    db_types.create(database, name='__DEFAULT__', description='')
    return database


def _manager(db, **conf):
    mgr = scheduler_manager.SchedulerManager(daemons.make_conf(**conf), host='s1', db=db)
    mgr.backup_api = placing.Recorder()
    return mgr


def _backup(db, *, volume_status='in-use', zone='nova', host=None, **values):
    vtype = db_types.get_by_name(db, name='__DEFAULT__')
    volume = db_volumes.create(db, values={
        'project_id': 'p1', 'user_id': 'u1', 'status': volume_status, 'size': 1,
        'host': 'node1@file#pool', 'volume_type_id': vtype.id, 'attach_status': 'detached',
        'availability_zone': zone})
    return db_backups.create(db, metadata=None, source_action='backup_in_use',
                             reserve=lambda s: [],
                             values={'volume_id': volume.id, 'project_id': 'p1',
                                     'size': 1, 'host': host, **values})


def test_a_live_backup_service_of_the_zone_gets_it(db):
    add_service(db, host='far', binary='cinder-backup', zone='other')
    add_service(db, host='down', binary='cinder-backup', heartbeat_age=3600)
    add_service(db, host='near', binary='cinder-backup')
    backup = _backup(db)
    mgr = _manager(db)
    mgr.create_backup(CTX, backup_id=backup.id)
    assert db_backups.get(db, backup_id=backup.id).host == 'near'
    assert mgr.backup_api.calls == [('create_backup', (CTX,),
                                     {'backup_id': backup.id, 'host': 'near'})]


def test_backup_use_same_host_takes_the_volume_host(db):
    add_service(db, host='other', binary='cinder-backup')
    add_service(db, host='node1', binary='cinder-backup')
    backup = _backup(db)
    mgr = _manager(db, backup_use_same_host=True)
    mgr.create_backup(CTX, backup_id=backup.id)
    assert db_backups.get(db, backup_id=backup.id).host == 'node1'


@pytest.mark.parametrize('services', [[], [('far', 'other')]])
def test_no_service_ends_in_error_with_the_volume_back_and_a_message(db, services):
    for host, zone in services:
        add_service(db, host=host, binary='cinder-backup', zone=zone)
    backup = _backup(db)
    mgr = _manager(db)
    mgr.create_backup(CTX, backup_id=backup.id)
    row = db_backups.get(db, backup_id=backup.id)
    assert (row.status, row.fail_reason) == ('error', 'Service not found for creating backup.')
    assert db_volumes.get(db, volume_id=row.volume_id).status == 'in-use'
    message, = db_messages.get_all(db, project_id='p1')
    assert (message.event_id, message.resource_uuid) == ('VOLUME_VOLUME_BACKUP_013_024',
                                                         backup.id)
    assert mgr.backup_api.calls == []


def test_an_incremental_keeps_its_parents_host_only_while_it_is_up(db):
    add_service(db, host='near', binary='cinder-backup')
    add_service(db, host='old', binary='cinder-backup', heartbeat_age=3600)
    backup = _backup(db, host='old')
    mgr = _manager(db)
    mgr.create_backup(CTX, backup_id=backup.id)
    assert db_backups.get(db, backup_id=backup.id).status == 'error'
    backup = _backup(db, host='near')
    mgr.create_backup(CTX, backup_id=backup.id)
    assert mgr.backup_api.calls[-1][2] == {'backup_id': backup.id, 'host': 'near'}
