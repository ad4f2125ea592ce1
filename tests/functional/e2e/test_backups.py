"""Backups end to end: the four daemons as processes on RabbitMQ and PostgreSQL, then
MariaDB; a `file` backend (local connections) and the posix backup driver.

Everything goes through the REST API; the test reaches a volume's bytes only through the
connection info os-initialize_connection returns, opened with cinderlike.connector, as a
host would. Backups are compared by sha256 after restores into new volumes and into the
original, an incremental is measured in the bytes it stores, a corrupted object fails its
restore, an in-use volume is read through a temporary snapshot, a record is exported and
imported into a fresh deployment, and kill -9 of the backup daemon mid-backup and
mid-restore leaves nothing behind once it restarts.
"""

import datetime
import hashlib
import os
import pathlib

import pytest

from cinderlike import connector
from tests.functional.e2e.stack import PROJECT, deployed, wait_for

pytestmark = [pytest.mark.rabbit, pytest.mark.qemu_img]

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


def _configure(workdir):
    def configure(stack):
        stack.update_config(BACKEND, volume_driver='file', target_helper='fake',
                            file_volume_directory=workdir / 'volumes')
        stack.update_config(backup_posix_path=workdir / 'backups',
                            backup_compression_algorithm='zstd',
                            # 64 MiB objects: a kill -9 finds some written, most to come.
                            backup_file_size=64 * MiB,
                            backup_driver_init_check_interval=2)
    return configure


@pytest.fixture(scope='module', params=[
    pytest.param('postgresql', marks=pytest.mark.postgresql),
    pytest.param('mysql', marks=pytest.mark.mysql)])
def server(request):
    return request.param, request.getfixturevalue(f'{request.param}_server_url')


@pytest.fixture(scope='module')
def stack(server, tmp_path_factory, rabbit_url):
    name, url = server
    workdir = tmp_path_factory.mktemp(f'backups-{name}')
    with deployed(workdir, server_url=url, transport_url=rabbit_url, backends=(BACKEND,),
                  configure=_configure(workdir), timeout=STARTUP) as made:
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


def _objects(stack, backup) -> dict[str, int]:
    """{data object name: bytes} of a backup in the posix directory."""
    container = pathlib.Path(stack.workdir / 'backups' / backup['container'])
    prefix = _service_metadata(stack, backup['id'])
    return {p.name: p.stat().st_size for p in container.iterdir()
            if p.name.startswith(prefix + '-')}


def _service_metadata(stack, backup_id) -> str:
    backups_dir = stack.workdir / 'backups'
    names = [p.name for p in backups_dir.rglob(f'*_backup_{backup_id}_metadata')]
    assert len(names) == 1, names
    return names[0][:-len('_metadata')]


def _messages(stack, resource_id) -> list[str]:
    body = stack.ok('GET', f'{V}/messages', expect=200, version='3.3')
    return [m['event_id'] for m in body['messages'] if m['resource_uuid'] == resource_id]


# --- the tests ---------------------------------------------------------------------------

def test_backup_restore_into_a_new_volume_and_into_the_original(stack):
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

    # Change 1 MiB: the incremental stores that MiB (random data: it does not compress).
    with _Connected(stack, volume['id'], writable=True) as opened:
        opened.seek(300 * MiB)
        opened.write(os.urandom(MiB))
    changed = _sha256(stack, volume['id'])
    incremental = _backup(stack, volume['id'], incremental=True)
    assert incremental['is_incremental'] is True
    stored = sum(_objects(stack, incremental).values())
    assert MiB <= stored <= MiB + 64 * 1024, stored
    assert _get(stack, 'backup', backup['id'])['has_dependent_backups'] is True
    refused = stack.request('DELETE', f'{V}/backups/{backup["id"]}')
    assert refused == (400, {'badRequest': {'code': 400, 'message': (
        'Invalid backup: Incremental backups exist for this backup.')}})
    assert _sha256(stack, _restore(stack, incremental['id'])) == changed

    _delete(stack, 'backup', incremental['id'])
    _delete(stack, 'backup', backup['id'])
    assert not any(stack.workdir.joinpath('backups').rglob(
        f'*_backup_{backup["id"]}*'))


def test_a_corrupt_object_fails_the_restore_with_a_message(stack):
    volume = _new_volume(stack)
    _write(stack, volume['id'], 'corrupt-me')
    backup = _backup(stack, volume['id'])
    container = stack.workdir / 'backups' / backup['container']
    victim = container / (_service_metadata(stack, backup['id']) + '-00001')
    data = bytearray(victim.read_bytes())
    data[len(data) // 2] ^= 0xFF
    victim.write_bytes(bytes(data))
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


def test_an_in_use_volume_is_backed_up_through_a_temporary_snapshot(stack):
    volume = _new_volume(stack)
    _write(stack, volume['id'], 'in-use')
    expected = _sha256(stack, volume['id'])
    attachment = stack.ok('POST', f'{V}/attachments', {'attachment': {
        'volume_uuid': volume['id'], 'instance_uuid': '7c1d9e4a-5b0f-4c3e-9a2d-1f0e8d7c6b5a',
        'connector': CONNECTOR, 'mode': 'rw'}}, expect=200, version='3.54')['attachment']
    stack.ok('POST', f'{V}/attachments/{attachment["id"]}/action', {'os-complete': None},
             expect=204, version='3.54')
    _settled(stack, 'volume', volume['id'], 'in-use')
    refused = stack.request('POST', f'{V}/backups', {'backup': {'volume_id': volume['id']}})
    assert refused[0] == 400
    backup = _backup(stack, volume['id'], force=True)
    assert _settled(stack, 'volume', volume['id'], 'in-use')
    snapshots = stack.ok('GET', f'{V}/snapshots?all_tenants=1', expect=200)['snapshots']
    assert snapshots == []
    assert not list((stack.workdir / 'volumes').glob('snapshot-*'))
    stack.ok('DELETE', f'{V}/attachments/{attachment["id"]}', expect=200, version='3.54')
    assert _sha256(stack, _restore(stack, backup['id'])) == expected


def test_export_then_import_into_a_fresh_deployment(stack, server, tmp_path, rabbit_url):
    volume = _new_volume(stack)
    _write(stack, volume['id'], 'exported')
    expected = _sha256(stack, volume['id'])
    backup = _backup(stack, volume['id'])
    record = stack.ok('GET', f'{V}/backups/{backup["id"]}/export_record',
                      expect=200)['backup-record']
    assert record['backup_service'] == 'cinder.backup.drivers.posix.PosixBackupDriver'
    workdir = tmp_path / 'fresh'
    workdir.mkdir()

    def configure(fresh):
        _configure(workdir)(fresh)
        # The same backup repository, mounted in the other deployment.
        fresh.update_config(backup_posix_path=stack.workdir / 'backups')
    with deployed(workdir, server_url=server[1], transport_url=rabbit_url,
                  backends=(BACKEND,), configure=configure, timeout=STARTUP) as fresh:
        imported = fresh.ok('POST', f'{V}/backups/import_record', {'backup-record': record},
                            expect=201)['backup']
        assert imported['id'] == backup['id']
        _settled(fresh, 'backup', backup['id'], 'available')
        assert _sha256(fresh, _restore(fresh, backup['id'])) == expected


def _kill_backup_daemon_when(stack, condition, what):
    wait_for(condition, timeout=SETTLE, what=what)
    stack.daemons['backup'].kill_group()


def _restart_backup_daemon(stack):
    """Start the backup daemon again; return once it heartbeated (its row's updated_at is
    after the restart), so the scheduler sees it up rather than the row of the dead one."""
    restarted = datetime.datetime.now(datetime.UTC).replace(tzinfo=None)
    stack.start('backup')

    def beating():
        row = stack.services().get(('cinder-backup', stack.host), {})
        return row.get('state') == 'up' and row.get('updated_at') and \
            datetime.datetime.fromisoformat(row['updated_at']) > restarted
    wait_for(beating, timeout=STARTUP, what='the restarted backup service to heartbeat')


def test_kill_9_mid_backup_and_mid_restore_leaves_nothing_behind(stack):
    # 2 GiB: 32 objects, so the daemon is killed with most of them still to write.
    volume = _new_volume(stack, size=2)
    _write(stack, volume['id'], 'killed', offsets=(0, 1024 * MiB, 2047 * MiB))
    expected = _sha256(stack, volume['id'])
    made = stack.ok('POST', f'{V}/backups', {'backup': {'volume_id': volume['id']}},
                    expect=202)['backup']

    def writing():
        shown = _get(stack, 'backup', made['id'])
        assert shown['status'] == 'creating', shown
        return any((stack.workdir / 'backups').rglob(f'*_backup_{made["id"]}-00001'))
    _kill_backup_daemon_when(stack, writing, 'the backup to write its first object')
    _restart_backup_daemon(stack)
    _settled(stack, 'backup', made['id'], 'error')
    _settled(stack, 'volume', volume['id'], 'available')

    backup = _backup(stack, volume['id'])
    target = _new_volume(stack, size=2)
    stack.ok('POST', f'{V}/backups/{backup["id"]}/restore',
             {'restore': {'volume_id': target['id']}}, expect=202)

    def restoring():
        return _get(stack, 'backup', backup['id'])['status'] == 'restoring' and \
            _get(stack, 'volume', target['id'])['status'] == 'restoring-backup'
    _kill_backup_daemon_when(stack, restoring, 'the restore to run')
    _restart_backup_daemon(stack)
    _settled(stack, 'backup', backup['id'], 'available')
    _settled(stack, 'volume', target['id'], 'error_restoring')
    stack.ok('POST', f'{V}/volumes/{target["id"]}/action',
             {'os-reset_status': {'status': 'available'}}, expect=202)
    _restore(stack, backup['id'], target['id'])
    assert _sha256(stack, target['id']) == expected
    assert stack.ok('GET', f'{V}/snapshots?all_tenants=1', expect=200)['snapshots'] == []
