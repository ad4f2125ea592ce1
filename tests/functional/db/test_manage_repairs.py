"""cinderlike-manage's repair commands as subprocesses against PostgreSQL, then MariaDB (and
RabbitMQ for `volume delete`'s cast): db purge, db online_data_migrations, quota check/sync,
volume delete/update_host, backup list/update_backup_host, util clean_locks, config list,
version list. Each test asserts the printed lines and what changed in the database."""

import datetime
import importlib.metadata
import json
import pathlib
import subprocess
import sys
import uuid

import pytest
import sqlalchemy as sa

from cinderlike.db import services as db_services
from cinderlike.db import volume_types as db_types
from cinderlike.db import volumes as db_volumes
from cinderlike.db.models import Backup, QuotaUsage, Service, Volume, utcnow

pytestmark = pytest.mark.rabbit

SCRIPT = pathlib.Path(sys.executable).parent / 'cinderlike-manage'


@pytest.fixture
def manage(fresh_db, tmp_path, rabbit_url):
    """run(*argv) -> CompletedProcess of the console script on this test's database."""
    locks = tmp_path / 'locks'
    locks.mkdir()
    config = tmp_path / 'cinderlike.conf'
    config.write_text(f'[DEFAULT]\ntransport_url = {rabbit_url}\n'
                      f'control_exchange = cl-manage-{uuid.uuid4().hex[:8]}\n\n'
                      f'[database]\nconnection = {fresh_db.engine.url.render_as_string(False)}\n'
                      f'\n[coordination]\nbackend_url = file://{locks}\n')

    def run(*argv):
        return subprocess.run([str(SCRIPT), '--config-file', str(config), *argv],
                              capture_output=True, text=True, timeout=120, check=False)
    run.locks = locks
    return run


def _volume(db, **values):
    vtype = db_types.get_by_name(db, name='__DEFAULT__')
    return db_volumes.create(db, values={
        'project_id': 'p1', 'user_id': 'u1', 'status': 'available', 'size': 1,
        'volume_type_id': vtype.id, 'attach_status': 'detached', 'availability_zone': 'nova',
        **values})


def _set(db, model, row_id, **values):
    with db.writer() as session:
        session.execute(sa.update(model).where(model.id == row_id).values(**values))


def _lines(done) -> list[str]:
    assert done.stderr.count('Traceback') == 0, done.stderr
    return done.stdout.splitlines()


def test_db_purge_removes_only_old_deleted_rows(fresh_db, manage):
    old, recent, live = _volume(fresh_db), _volume(fresh_db), _volume(fresh_db)
    long_ago = utcnow() - datetime.timedelta(days=40)
    _set(fresh_db, Volume, old.id, deleted=True, deleted_at=long_ago)
    _set(fresh_db, Volume, recent.id, deleted=True, deleted_at=utcnow())
    done = manage('db', 'purge', '30')
    assert done.returncode == 0
    assert _lines(done) == ['Deleted 1 rows from table=volumes']
    with fresh_db.reader() as session:
        left = set(session.scalars(sa.select(Volume.id)))
    assert left == {recent.id, live.id}
    refused = manage('db', 'purge', '-1')
    assert (refused.returncode, _lines(refused)) == (1, ['Must supply a positive value for age'])
    refused = manage('db', 'purge', '100000')
    assert (refused.returncode, _lines(refused)) == (
        1, ['Maximum age is count of days since epoch.'])


def test_online_data_migrations_give_services_a_uuid(fresh_db, manage):
    row = db_services.register(fresh_db, host='node1@b1', binary='cinder-volume',
                               topic='cinder-volume', availability_zone='nova')
    _set(fresh_db, Service, row.id, uuid=None)
    volume = _volume(fresh_db, host='node1@b1#b1')
    limited = manage('db', 'online_data_migrations', '--max_count', '1')
    assert limited.returncode == 1  # it did work: run again until 0
    lines = _lines(limited)
    assert lines[0] == '1 rows matched query service_uuids_online_data_migration, 1 migrated'
    assert '| service_uuids_online_data_migration |            1 |         1 |' in lines
    service = db_services.get(fresh_db, row.id)
    assert service.uuid is not None
    assert db_volumes.get(fresh_db, volume_id=volume.id).service_uuid == service.uuid
    done = manage('db', 'online_data_migrations')
    assert done.returncode == 0
    assert _lines(done)[0] == 'Running batches of 50 until complete.'
    assert manage('db', 'online_data_migrations', '--max_count', '0').returncode == 127


def _usage(db, project, resource, in_use, reserved=0):
    with db.writer() as session:
        session.add(QuotaUsage(project_id=project, resource=resource, in_use=in_use,
                               reserved=reserved, race_preventer=True))


def test_quota_check_then_sync_recount_from_the_rows(fresh_db, manage):
    _volume(fresh_db, size=3)
    _volume(fresh_db, size=2)
    _usage(fresh_db, 'p1', 'volumes', 7)
    _usage(fresh_db, 'p1', 'gigabytes', 5, reserved=4)
    _usage(fresh_db, 'p2', 'volumes', 0)
    checked = manage('quota', 'check')
    assert checked.returncode == 1
    assert _lines(checked) == [
        'Processing quota usage for project p1',
        '\tvolumes: invalid usage saved=7 actual=2',
        '\tgigabytes: invalid reserved saved=4 actual=0',
        'Processing quota usage for project p2',
        'Action successfully completed']
    one = manage('quota', 'check', '--project-id', 'p2')
    assert (one.returncode, _lines(one)) == (0, [
        'Processing quota usage for project p2', 'Action successfully completed'])
    synced = manage('quota', 'sync', '--project-id', 'p1')
    assert synced.returncode == 0
    assert '\tvolumes: invalid usage saved=7 actual=2 - fixed' in _lines(synced)
    with fresh_db.reader() as session:
        rows = {(u.resource, u.in_use, u.reserved) for u in session.scalars(
            sa.select(QuotaUsage).where(QuotaUsage.project_id == 'p1'))}
    assert rows == {('volumes', 2, 0), ('gigabytes', 5, 0)}
    assert manage('quota', 'check').returncode == 0
    missing = manage('quota', 'check', '--project-id', 'nobody')
    assert _lines(missing) == ['Project id nobody has no quota usage. Nothing to do.',
                               'Action successfully completed']


def test_volume_delete_and_update_host(fresh_db, manage):
    unplaced = _volume(fresh_db, status='error')
    done = manage('volume', 'delete', unplaced.id)
    assert _lines(done) == ['Volume not yet assigned to host.',
                            'Deleting volume from database and skipping rpc.']
    assert db_volumes.get_any(fresh_db, volume_id=unplaced.id).deleted is True
    in_use = _volume(fresh_db, host='node1@b1#b1', status='in-use')
    assert _lines(manage('volume', 'delete', in_use.id)) == [
        'Volume is in-use.', 'Detach volume from instance and then try again.']
    assert db_volumes.get(fresh_db, volume_id=in_use.id).status == 'in-use'
    placed = _volume(fresh_db, host='node1@b1#b1', status='error')
    done = manage('volume', 'delete', placed.id)
    assert (done.returncode, _lines(done)) == (0, [])
    assert db_volumes.get(fresh_db, volume_id=placed.id).status == 'deleting'
    gone = manage('volume', 'delete', str(uuid.uuid4()))
    assert gone.returncode == 2 and 'could not be found' in gone.stdout

    moved = manage('volume', 'update_host', '--currenthost', 'node1@b1#b1',
                   '--newhost', 'node2@b1#b1')
    assert _lines(moved) == ['Updated the host of 2 volumes from node1@b1#b1 to node2@b1#b1.']
    assert {db_volumes.get(fresh_db, volume_id=v.id).host for v in (in_use, placed)} == {
        'node2@b1#b1'}
    assert manage('volume', 'update_host', '--currenthost', 'x').returncode == 2


def test_backup_list_and_update_backup_host(fresh_db, manage):
    backup_id = str(uuid.uuid4())
    with fresh_db.writer() as session:
        session.add(Backup(id=backup_id, volume_id=str(uuid.uuid4()), user_id='u1',
                           project_id='p1', host='bk1', display_name='nightly',
                           container='c', status='available', size=2, object_count=None))
    listed = _lines(manage('backup', 'list'))
    assert listed[0].split('\t') == [
        'ID'.ljust(32), 'User ID'.ljust(32), 'Project ID'.ljust(32), 'Host'.ljust(24),
        'Name'.ljust(24), 'Container'.ljust(12), 'Status'.ljust(12), 'Size'.ljust(12),
        'Object Count']
    assert [field.strip() for field in listed[1].split('\t')] == [
        backup_id, 'u1', 'p1', 'bk1', 'nightly', 'c', 'available', '2', '0']
    moved = manage('backup', 'update_backup_host', '--currenthost', 'bk1', '--newhost', 'bk2')
    assert _lines(moved) == ['Updated the host of 1 backups from bk1 to bk2.']
    with fresh_db.reader() as session:
        assert session.get(Backup, backup_id).host == 'bk2'


def test_util_clean_locks(fresh_db, manage):
    live = _volume(fresh_db)
    dead = str(uuid.uuid4())
    kept = manage.locks / f'cinder-{live.id}-delete_volume'
    stale = [manage.locks / f'cinder-{dead}-delete_volume',
             manage.locks / f'cinder-{dead}-detach_volume']
    other = manage.locks / 'unrelated'
    for path in (kept, *stale, other):
        path.touch()
    done = manage('util', 'clean_locks')
    assert sorted(_lines(done)) == sorted(f'Removed lock {path}' for path in stale)
    assert kept.exists() and other.exists() and not any(p.exists() for p in stale)
    offline = manage('util', 'clean_locks', '--services-offline')
    assert _lines(offline) == [f'Removed lock {kept}']
    assert other.exists()


def test_config_list_and_version_list(manage):
    lines = _lines(manage('config', 'list'))
    assert 'transport_url = ****' in lines and 'database.connection = ****' in lines
    assert 'coordination.backend_url = ****' in lines
    assert 'service_down_time = 60' in lines
    assert _lines(manage('config', 'list', 'service_down_time')) == ['service_down_time = 60']
    missing = manage('config', 'list', 'nope')
    assert (missing.returncode, _lines(missing)) == (2, ['no such option nope'])
    version = manage('version', 'list')
    assert _lines(version) == [importlib.metadata.version('cinderlike')]


def test_status_upgrade_check_as_a_subprocess(fresh_db, manage, tmp_path):
    row = db_services.register(fresh_db, host='node1@b1', binary='cinder-volume',
                               topic='cinder-volume', availability_zone='nova')
    _set(fresh_db, Service, row.id, uuid=None)
    config = tmp_path / 'cinderlike.conf'
    config.write_text(config.read_text() + '\n[DEFAULT]\nenabled_backends = b1\n'
                      '[b1]\nvolume_driver = fake\n')

    def check():
        return subprocess.run([str(SCRIPT.with_name('cinderlike-status')), '--config-file',
                               str(config), 'upgrade', 'check', '--json'],
                              capture_output=True, text=True, timeout=120, check=False)
    failed = check()
    assert failed.returncode == 2
    results = {c['check']: c for c in json.loads(failed.stdout)['checks']}
    assert results['Service UUIDs'] == {
        'check': 'Service UUIDs', 'result': 2,
        'details': 'Services and volumes must have a service UUID. Please fix this issue by '
                   'running `cinderlike-manage db online_data_migrations`.'}
    assert {name for name, c in results.items() if c['result']} == {'Service UUIDs'}
    assert manage('db', 'online_data_migrations').returncode == 0
    passed = check()
    assert passed.returncode == 0, passed.stdout
