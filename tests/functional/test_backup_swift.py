"""drivers/backup/swift.py against a real OpenStack Swift (tests/fixtures/swift.py): the
chunked format's data tests, auth modes, containers and what Swift refuses."""

import hashlib
import os

import pytest
from swiftclient import client as swiftclient

from cinderlike import conf as cl_conf
from cinderlike import context as cl_context
from cinderlike import exception
from cinderlike.drivers.backup import records
from cinderlike.drivers.backup import swift as swift_driver
from tests.fixtures import swift as swift_fixtures
from tests.unit.drivers.backup.conftest import BLOCK, MiB, VolumeFile, ref, sha, stored

pytestmark = pytest.mark.swift
swift_server = swift_fixtures.swift_server


def _conf(server, **options):
    conf = cl_conf.new_conf()
    conf.register_opts(swift_driver.DRIVER_OPTS)
    conf([])
    values = {'backup_swift_auth': 'single_user', 'backup_swift_auth_url': server.auth_url,
              'backup_swift_user': 'test:tester', 'backup_swift_key': 'testing',
              'backup_swift_object_size': 16 * BLOCK, 'backup_swift_retry_attempts': 1,
              'backup_swift_retry_backoff': 0,
              'backup_swift_container': 'backups-' + os.urandom(4).hex()}
    values.update(options)
    for name, value in values.items():
        conf.set_override(name, value)
    return conf


def _driver(server, *, context=None, **options):
    driver = swift_driver.SwiftBackupDriver(_conf(server, **options), context=context)
    driver.check_for_setup_error()
    return driver


def _admin(server):
    return swiftclient.Connection(authurl=server.auth_url, user='test:tester', key='testing')


def _pattern(size):
    words = b'swift backup pattern '
    text = words * (size // len(words) + 1)
    return text[:size // 2] + os.urandom(size - size // 2)


def _restore(driver, backup, size, *, fill=b'\0', new=True):
    target = VolumeFile(fill * size)
    driver.restore(backup, 'vol-2', target, volume_is_new=new)
    return target.getvalue()


@pytest.mark.parametrize('algorithm', ['none', 'zlib', 'bz2', 'zstd'])
def test_full_backup_to_swift_and_restore(swift_server, algorithm):
    driver = _driver(swift_server, backup_compression_algorithm=algorithm)
    data = _pattern(3 * MiB + 7 * BLOCK)
    backup = ref()
    updates = driver.backup(backup, VolumeFile(data), volume_meta={'version': 2})
    backup = stored(backup, updates)
    assert updates['container'] == driver.conf.backup_swift_container
    assert updates['service_metadata'] == (
        f'volume_vol-1/20261201114442/az_nova_backup_{backup.id}')
    _, listing = _admin(swift_server).get_container(backup.container,
                                                    prefix=backup.service_metadata)
    names = {entry['name'] for entry in listing}
    count = -(-len(data) // (16 * BLOCK))
    assert updates['object_count'] == count
    assert names == {records.object_name(backup.service_metadata, n)
                     for n in range(1, count + 1)} | {
        records.metadata_name(backup.service_metadata),
        records.sha256_name(backup.service_metadata)}
    assert sha(_restore(driver, backup, len(data))) == sha(data)


def test_incremental_stores_only_the_changed_mib(swift_server):
    driver = _driver(swift_server, backup_compression_algorithm='none')
    data = bytearray(os.urandom(8 * MiB))
    full = stored(b := ref(), driver.backup(b, VolumeFile(bytes(data))))
    data[3 * MiB:4 * MiB] = os.urandom(MiB)
    inc = stored(b := ref(parent=full), driver.backup(b, VolumeFile(bytes(data))))
    _, listing = _admin(swift_server).get_container(inc.container,
                                                    prefix=inc.service_metadata)
    data_bytes = sum(entry['bytes'] for entry in listing
                     if not entry['name'].endswith(('_metadata', '_sha256file')))
    assert data_bytes == MiB
    assert sha(_restore(driver, inc, len(data))) == sha(bytes(data))
    assert sha(_restore(driver, inc, len(data), fill=b'\1', new=False)) == sha(bytes(data))


def test_corrupt_object_in_swift_fails_the_restore_without_writing_it(swift_server):
    driver = _driver(swift_server, backup_compression_algorithm='zstd')
    data = _pattern(2 * MiB)
    backup = stored(b := ref(), driver.backup(b, VolumeFile(data)))
    name = records.object_name(backup.service_metadata, 2)
    admin = _admin(swift_server)
    _, body = admin.get_object(backup.container, name)
    damaged = bytearray(body)
    damaged[len(damaged) // 2] ^= 0xFF
    admin.put_object(backup.container, name, bytes(damaged))
    old = b'\xee' * len(data)
    target = VolumeFile(old)
    with pytest.raises(exception.BackupRestoreCorrupt):
        driver.restore(backup, 'vol-2', target, volume_is_new=False)
    chunk = 16 * BLOCK
    result = target.getvalue()
    assert result[:chunk] == data[:chunk]
    assert result[2 * chunk:] == old[2 * chunk:]
    assert all(result[i:i + BLOCK] in (data[i:i + BLOCK], old[i:i + BLOCK])
               for i in range(chunk, 2 * chunk, BLOCK))


def test_delete_is_idempotent_and_finds_an_unreported_backup(swift_server):
    driver = _driver(swift_server)
    backup = ref()
    updates = driver.backup(backup, VolumeFile(_pattern(MiB)))
    driver.delete_backup(backup)
    _, listing = _admin(swift_server).get_container(updates['container'],
                                                    prefix=updates['service_metadata'])
    assert listing == []
    driver.delete_backup(stored(backup, updates))


def test_export_and_import_into_a_fresh_driver(swift_server):
    driver = _driver(swift_server)
    data = _pattern(MiB)
    backup = stored(b := ref(), driver.backup(b, VolumeFile(data)))
    info = driver.export_record(backup)
    fresh = swift_driver.SwiftBackupDriver(driver.conf)
    fresh.import_record(backup, info)
    assert sha(_restore(fresh, backup, len(data))) == sha(data)


def _token_context(server, user, project):
    _, token = server.login(user)
    return cl_context.RequestContext(auth_token=token, project_id=project, user_id=user)


def test_per_user_auth_uses_the_requesters_token_and_account(swift_server):
    url = f'{swift_server.endpoint}/v1/AUTH_'
    mine = _token_context(swift_server, 'test:tester', 'test')
    driver = _driver(swift_server, context=mine, backup_swift_auth='per_user',
                     backup_swift_url=url)
    data = _pattern(MiB)
    backup = stored(b := ref(), driver.backup(b, VolumeFile(data)))
    assert sha(_restore(driver, backup, len(data))) == sha(data)
    # Another project's token reaches its own account, where this backup is not.
    theirs = _token_context(swift_server, 'other:tester', 'other')
    stranger = _driver(swift_server, context=theirs, backup_swift_auth='per_user',
                       backup_swift_url=url,
                       backup_swift_container=driver.conf.backup_swift_container)
    with pytest.raises(exception.BackupObjectNotFound):
        _restore(stranger, backup, len(data))


def test_per_user_auth_finds_swift_in_the_token_catalog(swift_server):
    ctx = _token_context(swift_server, 'test:tester', 'test')
    ctx.service_catalog = [
        {'type': 'identity', 'endpoints': [{'publicURL': 'http://keystone/v3'}]},
        {'type': 'object-store', 'name': 'swift',
         'endpoints': [{'region': 'elsewhere', 'publicURL': 'http://127.0.0.1:9/v1'},
                       {'region': 'RegionOne',
                        'publicURL': swift_server.storage_url('test')}]}]
    driver = _driver(swift_server, context=ctx, backup_swift_auth='per_user',
                     backup_swift_region_name='RegionOne')
    data = _pattern(MiB)
    backup = stored(b := ref(), driver.backup(b, VolumeFile(data)))
    assert sha(_restore(driver, backup, len(data))) == sha(data)


def test_setup_check_refuses_bad_credentials_and_unreachable_swift(swift_server):
    with pytest.raises(exception.BackupDriverException, match='not usable'):
        _driver(swift_server, backup_swift_key='wrong')
    with pytest.raises(exception.BackupDriverException, match='not usable'):
        _driver(swift_server, backup_swift_auth='per_user',
                backup_swift_url='http://127.0.0.1:9/v1/AUTH_')
    _driver(swift_server, backup_swift_auth='per_user',
            backup_swift_url=f'{swift_server.endpoint}/v1/AUTH_')


def test_containers_are_created_with_the_storage_policy_or_refused(swift_server):
    driver = _driver(swift_server, backup_swift_create_storage_policy='Policy-0')
    backup = stored(b := ref(), driver.backup(b, VolumeFile(_pattern(MiB))))
    headers = _admin(swift_server).head_container(backup.container)
    assert headers['x-storage-policy'] == 'Policy-0'
    strict = _driver(swift_server, backup_create_containers=False)
    with pytest.raises(exception.SwiftConnectionFailed, match='does not exist'):
        strict.backup(ref(), VolumeFile(_pattern(MiB)))


def test_objects_carry_their_md5_as_etag(swift_server):
    driver = _driver(swift_server, backup_compression_algorithm='none')
    data = os.urandom(MiB)
    backup = stored(b := ref(), driver.backup(b, VolumeFile(data)))
    name = records.object_name(backup.service_metadata, 1)
    headers = _admin(swift_server).head_object(backup.container, name)
    assert headers['etag'] == hashlib.md5(data[:16 * BLOCK]).hexdigest()
