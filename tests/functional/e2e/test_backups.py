"""Backups end to end: the four daemons as processes on RabbitMQ, a `file` backend (local
connections), backups to posix on PostgreSQL and to a real Swift (tests/fixtures/swift.py)
on MariaDB.

NOTE(matrix): one backup driver per database rather than both by both: each combination
costs a stack and about two minutes of this module, and the drivers share everything but
how objects are stored (tests/functional/e2e/backup_repos.py), while the databases share
everything but SQL, which tests/functional/db covers on both.

Everything goes through the REST API; the test reaches a volume's bytes only through the
connection info os-initialize_connection returns, opened with cinderlike.connector, as a
host would. Backups are compared by sha256 after restores into new volumes and into the
original, an incremental is measured in the bytes its new objects hold, a corrupted object
fails its restore, an in-use volume is read through a temporary clone, a record is exported
and imported into a fresh deployment, a restore is cancelled by resetting its backup, and
after kill -9 of the backup daemon mid-backup POST /workers/cleanup (resource_type Backup)
through a second backup daemon, and mid-restore its restart, leave nothing behind.
"""

import datetime
import hashlib
import os

import pytest

from cinderlike import connector
from tests.fixtures import swift as swift_fixtures
from tests.functional.e2e import backup_repos
from tests.functional.e2e.stack import PROJECT, deployed, wait_for

pytestmark = [pytest.mark.rabbit, pytest.mark.qemu_img]
swift_server = swift_fixtures.swift_server

STARTUP = 90
SETTLE = 120
V = f'/v3/{PROJECT}'
MiB = 1024 * 1024
BACKEND = 'file'
CONNECTOR = {'initiator': 'iqn.1994-05.com.redhat:test', 'ip': '127.0.0.1',
             'host': 'testhost', 'multipath': False, 'platform': 'x86_64',
             'os_type': 'linux2', 'do_local_attach': False}
# Where the pattern goes: the first MiB, one in the middle, the last one of a 1 GiB volume.
OFFSETS = (0, 512 * MiB, 1023 * MiB)
WORKERS_CLEANUP = '3.24'


def _configure(workdir, repo):
    def configure(stack):
        stack.update_config(BACKEND, volume_driver='file', target_helper='fake',
                            file_volume_directory=workdir / 'volumes')
        stack.update_config(backup_compression_algorithm='zstd',
                            # 64 MiB objects: a kill -9 finds some written, most to come.
                            backup_file_size=64 * MiB,
                            backup_driver_init_check_interval=2, **repo.options())
    return configure


@pytest.fixture(scope='module', params=[
    pytest.param(('postgresql', 'posix'), marks=pytest.mark.postgresql, id='postgresql-posix'),
    pytest.param(('mysql', 'swift'), marks=[pytest.mark.mysql, pytest.mark.swift],
                 id='mysql-swift')])
def server(request):
    name, driver = request.param
    return name, request.getfixturevalue(f'{name}_server_url'), driver


@pytest.fixture(scope='module')
def repo(server, tmp_path_factory, request):
    if server[2] == 'swift':
        return backup_repos.Swift(request.getfixturevalue('swift_server'))
    return backup_repos.Posix(tmp_path_factory.mktemp('posix-backups'))


@pytest.fixture(scope='module')
def stack(server, repo, tmp_path_factory, rabbit_url):
    name, url, driver = server
    workdir = tmp_path_factory.mktemp(f'backups-{name}-{driver}')
    with deployed(workdir, server_url=url, transport_url=rabbit_url, backends=(BACKEND,),
                  configure=_configure(workdir, repo), timeout=STARTUP) as made:
        # The module's tests keep what they made: more than the default 10 volumes.
        made.ok('PUT', f'{V}/os-quota-sets/{PROJECT}', {'quota_set': {
            'volumes': -1, 'gigabytes': -1, 'backups': -1, 'backup_gigabytes': -1}},
            expect=200)
        yield made


# --- helpers -----------------------------------------------------------------------------

def _get(stack, kind, item_id):
    status, body = stack.request('GET', f'{V}/{kind}s/{item_id}')
    return body[kind] if status == 200 else None


def _settled(stack, kind, item_id, wanted, *, busy=('creating', 'deleting', 'restoring',
                                                     'backing-up', 'restoring-backup')):
    def steady():
        row = _get(stack, kind, item_id)
        return row if row is not None and row['status'] not in busy else None
    row = wait_for(steady, timeout=SETTLE, what=f'{kind} {item_id} to settle')
    assert row['status'] == wanted, row
    return row


def _new_volume(stack, size=1):
    made = stack.ok('POST', f'{V}/volumes', {'volume': {'size': size}}, expect=202)['volume']
    return _settled(stack, 'volume', made['id'], 'available')


def _delete(stack, kind, item_id):
    stack.ok('DELETE', f'{V}/{kind}s/{item_id}', expect=202)
    wait_for(lambda: stack.request('GET', f'{V}/{kind}s/{item_id}')[0] == 404,
             timeout=SETTLE, what=f'{kind} {item_id} to be deleted')


class _Connected:
    """A volume's bytes through its connection, as a host reaches them."""

    def __init__(self, stack, volume_id, *, writable):
        self.stack, self.volume_id, self.writable = stack, volume_id, writable

    def __enter__(self):
        info = self.stack.ok('POST', f'{V}/volumes/{self.volume_id}/action',
                             {'os-initialize_connection': {'connector': CONNECTOR}},
                             expect=200)['connection_info']
        self._opened = connector.open_volume(info, writable=self.writable)
        return self._opened.__enter__()

    def __exit__(self, *exc):
        try:
            return self._opened.__exit__(*exc)
        finally:
            self.stack.ok('POST', f'{V}/volumes/{self.volume_id}/action',
                          {'os-terminate_connection': {'connector': CONNECTOR}}, expect=202)


def _pattern(seed: str, index: int) -> bytes:
    return hashlib.sha256(f'{seed}-{index}'.encode()).digest() * (MiB // 32)


def _write(stack, volume_id, seed: str, offsets=OFFSETS) -> None:
    with _Connected(stack, volume_id, writable=True) as volume:
        for index, offset in enumerate(offsets):
            volume.seek(offset)
            volume.write(_pattern(seed, index))


def _sha256(stack, volume_id) -> str:
    digest = hashlib.sha256()
    with _Connected(stack, volume_id, writable=False) as volume:
        for piece in iter(lambda: volume.read(8 * MiB), b''):
            digest.update(piece)
    return digest.hexdigest()


def _backup(stack, volume_id, *, wanted='available', **options):
    made = stack.ok('POST', f'{V}/backups', {'backup': {'volume_id': volume_id, **options}},
                    expect=202)['backup']
    return _settled(stack, 'backup', made['id'], wanted)


def _restore(stack, backup_id, volume_id=None, *, wanted='available'):
    """Restore into *volume_id* (a new volume when None); the volume's id once it settled
    *wanted*, the backup available again."""
    body = {'restore': {'volume_id': volume_id} if volume_id else {}}
    shown = stack.ok('POST', f'{V}/backups/{backup_id}/restore', body, expect=202)['restore']
    _settled(stack, 'volume', shown['volume_id'], wanted)
    _settled(stack, 'backup', backup_id, 'available')
    return shown['volume_id']


def _messages(stack, resource_id) -> list[str]:
    body = stack.ok('GET', f'{V}/messages', expect=200, version='3.3')
    return [m['event_id'] for m in body['messages'] if m['resource_uuid'] == resource_id]


# --- the tests ---------------------------------------------------------------------------

def test_backup_restore_into_a_new_volume_and_into_the_original(stack, repo):
    volume = _new_volume(stack)
    _write(stack, volume['id'], 'first')
    expected = _sha256(stack, volume['id'])
    backup = _backup(stack, volume['id'], name='full')
    assert backup['object_count'] > 0 and backup['size'] == 1
    assert _settled(stack, 'volume', volume['id'], 'available')
    _write(stack, volume['id'], 'overwritten')
    assert _sha256(stack, volume['id']) != expected
    new_id = _restore(stack, backup['id'])
    assert _settled(stack, 'volume', new_id, 'available')['name'] == \
        f'restore_backup_{backup["id"]}'
    assert _sha256(stack, new_id) == expected
    _restore(stack, backup['id'], volume['id'])
    assert _sha256(stack, volume['id']) == expected

    # Change 1 MiB: the incremental's new objects hold that MiB (random data: it does not
    # compress), whatever the driver stores them in.
    with _Connected(stack, volume['id'], writable=True) as opened:
        opened.seek(300 * MiB)
        opened.write(os.urandom(MiB))
    changed = _sha256(stack, volume['id'])
    incremental = _backup(stack, volume['id'], incremental=True)
    assert incremental['is_incremental'] is True
    stored = sum(backup_repos.data_objects(repo, incremental['id']).values())
    assert MiB <= stored <= MiB + 64 * 1024, stored
    assert _get(stack, 'backup', backup['id'])['has_dependent_backups'] is True
    refused = stack.request('DELETE', f'{V}/backups/{backup["id"]}')
    assert refused == (400, {'badRequest': {'code': 400, 'message': (
        'Invalid backup: Incremental backups exist for this backup.')}})
    assert _sha256(stack, _restore(stack, incremental['id'])) == changed

    _delete(stack, 'backup', incremental['id'])
    _delete(stack, 'backup', backup['id'])
    assert repo.objects(backup['id']) == {} and repo.objects(incremental['id']) == {}


def test_a_corrupt_object_fails_the_restore_with_a_message(stack, repo):
    volume = _new_volume(stack)
    _write(stack, volume['id'], 'corrupt-me')
    backup = _backup(stack, volume['id'])
    (victim,) = [name for name in repo.objects(backup['id']) if name.endswith('-00001')]
    data = bytearray(repo.read(backup['id'], victim))
    data[len(data) // 2] ^= 0xFF
    repo.write(backup['id'], victim, bytes(data))
    target = _new_volume(stack)
    _restore(stack, backup['id'], target['id'], wanted='error_restoring')
    assert 'VOLUME_VOLUME_BACKUP_015_026' in _messages(stack, backup['id'])
    # No garbage: each MiB of the target is still zeros, or the backup's data checked
    # before the damaged block stopped the restore.
    stack.ok('POST', f'{V}/volumes/{target["id"]}/action',
             {'os-reset_status': {'status': 'available'}}, expect=202)
    zeros = bytes(MiB)
    with _Connected(stack, target['id'], writable=False) as got, \
            _Connected(stack, volume['id'], writable=False) as source:
        for _index in range(1024):
            piece, original = got.read(MiB), source.read(MiB)
            assert piece in (zeros, original)


def _attach(stack, volume_id) -> str:
    attachment = stack.ok('POST', f'{V}/attachments', {'attachment': {
        'volume_uuid': volume_id, 'instance_uuid': '7c1d9e4a-5b0f-4c3e-9a2d-1f0e8d7c6b5a',
        'connector': CONNECTOR, 'mode': 'rw'}}, expect=200, version='3.54')['attachment']
    stack.ok('POST', f'{V}/attachments/{attachment["id"]}/action', {'os-complete': None},
             expect=204, version='3.54')
    _settled(stack, 'volume', volume_id, 'in-use')
    return attachment['id']


def _volume_files(stack) -> set[str]:
    return {p.name for p in (stack.workdir / 'volumes').iterdir()}


def _volume_ids(stack) -> set[str]:
    body = stack.ok('GET', f'{V}/volumes?all_tenants=1', expect=200)
    return {v['id'] for v in body['volumes']}


def test_an_in_use_volume_is_backed_up_through_a_temporary_clone(stack):
    volume = _new_volume(stack)
    _write(stack, volume['id'], 'in-use')
    expected = _sha256(stack, volume['id'])
    attachment_id = _attach(stack, volume['id'])
    refused = stack.request('POST', f'{V}/backups', {'backup': {'volume_id': volume['id']}})
    assert refused[0] == 400
    volumes, files = _volume_ids(stack), _volume_files(stack)
    backup = _backup(stack, volume['id'], force=True)
    assert _settled(stack, 'volume', volume['id'], 'in-use')
    # The clone (Cinder's default, backup_use_temp_snapshot False) and its file are gone.
    assert (_volume_ids(stack), _volume_files(stack)) == (volumes, files)
    assert stack.ok('GET', f'{V}/snapshots?all_tenants=1', expect=200)['snapshots'] == []
    stack.ok('DELETE', f'{V}/attachments/{attachment_id}', expect=200, version='3.54')
    assert _sha256(stack, _restore(stack, backup['id'])) == expected


def test_export_then_import_into_a_fresh_deployment(stack, server, repo, tmp_path,
                                                    rabbit_url):
    volume = _new_volume(stack)
    _write(stack, volume['id'], 'exported')
    expected = _sha256(stack, volume['id'])
    backup = _backup(stack, volume['id'])
    record = stack.ok('GET', f'{V}/backups/{backup["id"]}/export_record',
                      expect=200)['backup-record']
    assert record['backup_service'] == repo.service
    workdir = tmp_path / 'fresh'
    workdir.mkdir()
    # The same backup repository (directory or Swift container) in the other deployment.
    with deployed(workdir, server_url=server[1], transport_url=rabbit_url,
                  backends=(BACKEND,), configure=_configure(workdir, repo),
                  timeout=STARTUP) as fresh:
        imported = fresh.ok('POST', f'{V}/backups/import_record', {'backup-record': record},
                            expect=201)['backup']
        assert imported['id'] == backup['id']
        _settled(fresh, 'backup', backup['id'], 'available')
        assert _sha256(fresh, _restore(fresh, backup['id'])) == expected


def _big_volume(stack, seed):
    """A 2 GiB volume with a pattern: 32 objects, so a backup or a restore runs a while."""
    volume = _new_volume(stack, size=2)
    _write(stack, volume['id'], seed, offsets=(0, 1024 * MiB, 2047 * MiB))
    return volume


def _restoring(stack, backup_id, volume_id):
    return lambda: _get(stack, 'backup', backup_id)['status'] == 'restoring' and \
        _get(stack, 'volume', volume_id)['status'] == 'restoring-backup'


def test_resetting_a_restoring_backup_cancels_the_restore(stack):
    volume = _big_volume(stack, 'cancelled')
    backup = _backup(stack, volume['id'])
    target = _new_volume(stack, size=2)
    stack.ok('POST', f'{V}/backups/{backup["id"]}/restore',
             {'restore': {'volume_id': target['id']}}, expect=202)
    wait_for(_restoring(stack, backup['id'], target['id']), timeout=SETTLE,
             what='the restore to run')
    stack.ok('POST', f'{V}/backups/{backup["id"]}/action',
             {'os-reset_status': {'status': 'error'}}, expect=202)
    # Cinder's: the target is useless, so `error`; the backup keeps the reset status.
    _settled(stack, 'volume', target['id'], 'error')
    assert _get(stack, 'backup', backup['id'])['status'] == 'error'


def _kill_backup_daemon_when(stack, condition, what):
    wait_for(condition, timeout=SETTLE, what=what)
    stack.daemons['backup'].kill_group()


def _beating(stack, host, since):
    def beating():
        row = stack.services().get(('cinder-backup', host), {})
        return row.get('state') == 'up' and row.get('updated_at') and \
            datetime.datetime.fromisoformat(row['updated_at']) > since
    wait_for(beating, timeout=STARTUP, what=f'backup service {host} to heartbeat')


def _restart_backup_daemon(stack):
    """Start the backup daemon again; return once it heartbeated (its row's updated_at is
    after the restart), so the scheduler sees it up rather than the row of the dead one."""
    restarted = datetime.datetime.now(datetime.UTC).replace(tzinfo=None)
    stack.start('backup')
    _beating(stack, stack.host, restarted)


def test_kill_9_mid_backup_and_mid_restore_leaves_nothing_behind(stack, repo):
    volume = _big_volume(stack, 'killed')
    expected = _sha256(stack, volume['id'])
    attachment_id = _attach(stack, volume['id'])
    volumes, files = _volume_ids(stack), _volume_files(stack)
    made = stack.ok('POST', f'{V}/backups', {'backup': {'volume_id': volume['id'],
                                                         'force': True}},
                    expect=202)['backup']

    def writing():
        shown = _get(stack, 'backup', made['id'])
        assert shown['status'] == 'creating', shown
        return any(name.endswith('-00001') for name in repo.objects(made['id']))
    _kill_backup_daemon_when(stack, writing, 'the backup to write its first object')
    # A second backup service settles the dead one's rows (POST /workers/cleanup).
    started = datetime.datetime.now(datetime.UTC).replace(tzinfo=None)
    peer = f'{stack.host}-b2'
    stack.start('backup', label='backup-2', host=peer)
    _beating(stack, peer, started)
    wait_for(lambda: stack.services()[('cinder-backup', stack.host)]['state'] == 'down',
             timeout=SETTLE, what='the killed backup service to show down')
    answer = stack.ok('POST', f'{V}/workers/cleanup', {'resource_type': 'backup'},
                      expect=202, version=WORKERS_CLEANUP)
    assert [(s['binary'], s['host']) for s in answer['cleaning']] == [
        ('cinder-backup', stack.host)]
    assert answer['unavailable'] == []
    _settled(stack, 'backup', made['id'], 'error')
    _settled(stack, 'volume', volume['id'], 'in-use')
    # The temporary clone, its file and its capacity claim went with it.
    assert (_volume_ids(stack), _volume_files(stack)) == (volumes, files)
    stack.daemons['backup-2'].stop()
    # NOTE(down): a stopped service counts as up until service_down_time has passed (as in
    # Cinder), and the scheduler picks among the up ones at random: wait for it to show down.
    wait_for(lambda: stack.services()[('cinder-backup', peer)]['state'] == 'down',
             timeout=SETTLE, what='the stopped backup service to show down')
    stack.ok('DELETE', f'{V}/attachments/{attachment_id}', expect=200, version='3.54')
    _settled(stack, 'volume', volume['id'], 'available')
    _restart_backup_daemon(stack)

    backup = _backup(stack, volume['id'])
    target = _new_volume(stack, size=2)
    stack.ok('POST', f'{V}/backups/{backup["id"]}/restore',
             {'restore': {'volume_id': target['id']}}, expect=202)
    _kill_backup_daemon_when(stack, _restoring(stack, backup['id'], target['id']),
                             'the restore to run')
    _restart_backup_daemon(stack)
    _settled(stack, 'backup', backup['id'], 'available')
    _settled(stack, 'volume', target['id'], 'error_restoring')
    stack.ok('POST', f'{V}/volumes/{target["id"]}/action',
             {'os-reset_status': {'status': 'available'}}, expect=202)
    _restore(stack, backup['id'], target['id'])
    assert _sha256(stack, target['id']) == expected
    assert stack.ok('GET', f'{V}/snapshots?all_tenants=1', expect=200)['snapshots'] == []
