"""drivers/backup/chunked.py through the posix store: Cinder's objects, full and incremental
backups, restores of the chain, checksums refused before a byte is written."""

import hashlib
import json
import os
import zlib

import pytest

from cinderlike import exception
from cinderlike.drivers.backup import records
from tests.unit.drivers.backup.conftest import BLOCK, MiB, VolumeFile, ref, sha, stored

ALGORITHMS = ['none', 'zlib', 'bz2', 'zstd']


def _pattern(size: int, seed: int = 1) -> bytes:
    """Half compressible text, half random: both kinds of object."""
    words = b'cinderlike backup pattern %d ' % seed
    text = words * (size // len(words) + 1)
    return text[:size // 2] + os.urandom(size - size // 2)


def _files(driver, backup):
    container, prefix = driver.locate(backup)
    path = os.path.join(driver.root, container)
    return {name: os.path.getsize(os.path.join(path, name))
            for name in os.listdir(path) if name.startswith(prefix)}


def _meta(driver, backup):
    container, prefix = driver.locate(backup)
    with open(os.path.join(driver.root, container, records.metadata_name(prefix))) as f:
        return json.load(f)


def _restore(driver, backup, size, *, fill=b'\0', new=True):
    target = VolumeFile(fill * size)
    driver.restore(backup, 'vol-2', target, volume_is_new=new)
    return target.getvalue()


@pytest.mark.parametrize('algorithm', ALGORITHMS)
def test_full_backup_objects_and_restore(posix_driver, algorithm):
    driver = posix_driver(backup_compression_algorithm=algorithm)
    data = _pattern(2 * MiB + 5 * BLOCK)
    backup = ref()
    updates = driver.backup(backup, VolumeFile(data), volume_meta={'version': 2})
    backup = stored(backup, updates)

    chunk = 8 * BLOCK
    count = -(-len(data) // chunk)
    assert updates['object_count'] == count
    assert updates['service_metadata'] == (
        f'volume_vol-1_20261201114442_backup_{backup.id}')
    meta = _meta(driver, backup)
    assert meta['version'] == '1.0.0' and meta['backup_id'] == backup.id
    assert meta['parent_id'] is None and meta['volume_meta'] == {'version': 2}
    for number, entry in enumerate(meta['objects'], start=1):
        ((name, info),) = entry.items()
        assert name == records.object_name(backup.service_metadata, number)
        offset = (number - 1) * chunk
        raw = data[offset:offset + chunk]
        assert info['offset'] == offset and info['length'] == len(raw)
        assert info['md5'] == hashlib.md5(raw).hexdigest()
        # Random halves do not shrink and are stored as they are.
        assert info['compression'] in (algorithm, 'none')
    compressed = [e for entry in meta['objects'] for e in entry.values()
                  if e['compression'] != 'none']
    assert bool(compressed) == (algorithm != 'none')
    assert _restore(driver, backup, len(data)) == data


def test_sha256file_has_a_digest_per_block(posix_driver):
    driver = posix_driver()
    data = _pattern(10 * BLOCK + 100)
    backup = stored(b := ref(), driver.backup(b, VolumeFile(data)))
    container, prefix = driver.locate(backup)
    with open(os.path.join(driver.root, container, records.sha256_name(prefix)), 'rb') as f:
        raw = f.read()
    doc = json.loads(raw)
    assert doc['chunk_size'] == BLOCK
    assert doc['sha256s'] == [sha(data[i:i + BLOCK]) for i in range(0, len(data), BLOCK)]
    # Cinder's own layout, byte for byte.
    assert raw == json.dumps(doc, sort_keys=True, indent=2).encode()


def test_incremental_stores_only_changed_blocks_and_restores_the_chain(posix_driver):
    driver = posix_driver(backup_compression_algorithm='none')
    data = bytearray(_pattern(4 * MiB))
    full = stored(b := ref(), driver.backup(b, VolumeFile(bytes(data))))
    # Change 3 blocks in one place and one byte elsewhere.
    data[MiB + 10:MiB + 10 + 2 * BLOCK] = os.urandom(2 * BLOCK)
    data[3 * MiB] ^= 0xFF
    inc = ref(parent=full)
    updates = driver.backup(inc, VolumeFile(bytes(data)))
    inc = stored(inc, updates)

    meta = _meta(driver, inc)
    assert meta['parent_id'] == full.id
    extents = [(e['offset'], e['length']) for entry in meta['objects'] for e in entry.values()]
    assert extents == [(MiB, 3 * BLOCK), (3 * MiB, BLOCK)]
    stored_bytes = sum(size for name, size in _files(driver, inc).items()
                       if not name.endswith(('_metadata', '_sha256file')))
    assert stored_bytes == 4 * BLOCK

    data[2 * MiB:2 * MiB + BLOCK] = b'\1' * BLOCK
    second = stored(b := ref(parent=inc), driver.backup(b, VolumeFile(bytes(data))))
    assert _restore(driver, second, len(data)) == bytes(data)
    assert _restore(driver, second, len(data), fill=b'\7', new=False) == bytes(data)


def test_incremental_that_zeroes_data_restores_zeros_into_a_new_volume(posix_driver):
    """Zero runs are skipped only for the full backup's layer: a later layer's zeros count."""
    driver = posix_driver()
    data = bytearray(b'\x55' * (2 * MiB))
    full = stored(b := ref(), driver.backup(b, VolumeFile(bytes(data))))
    data[:MiB] = bytes(MiB)
    inc = stored(b := ref(parent=full), driver.backup(b, VolumeFile(bytes(data))))
    assert _restore(driver, inc, len(data)) == bytes(data)


def test_incremental_refused_when_volume_grew_or_block_size_changed(posix_driver):
    driver = posix_driver()
    full = stored(b := ref(), driver.backup(b, VolumeFile(_pattern(MiB))))
    with pytest.raises(exception.BackupChainInvalid, match='Volume size increased'):
        driver.backup(ref(parent=full, size=2), VolumeFile(_pattern(MiB)))
    other = posix_driver(backup_sha_block_size_bytes=BLOCK // 2)
    with pytest.raises(exception.BackupChainInvalid, match='Hash block size has changed'):
        other.backup(ref(parent=full), VolumeFile(_pattern(MiB)))


def _corrupt(driver, backup, number):
    """Flip a byte in the middle of an object; returns its offset in the object file."""
    container, prefix = driver.locate(backup)
    path = os.path.join(driver.root, container, records.object_name(prefix, number))
    at = os.path.getsize(path) // 2
    with open(path, 'r+b') as f:
        f.seek(at)
        byte = f.read(1)
        f.seek(at)
        f.write(bytes([byte[0] ^ 0xFF]))
    return at


@pytest.mark.parametrize('algorithm', ALGORITHMS)
def test_corrupt_object_is_refused_before_its_bad_block_is_written(posix_driver, algorithm):
    driver = posix_driver(backup_compression_algorithm=algorithm)
    data = _pattern(2 * MiB)
    backup = stored(b := ref(), driver.backup(b, VolumeFile(data)))
    bad = 3
    at = _corrupt(driver, backup, bad)
    old = b'\xee' * len(data)
    target = VolumeFile(old)
    with pytest.raises(exception.BackupRestoreCorrupt, match=backup.id):
        driver.restore(backup, 'vol-2', target, volume_is_new=False)
    chunk = 8 * BLOCK
    start = (bad - 1) * chunk
    result = target.getvalue()
    # Before the bad object: restored. After it: untouched. In it, each block is either
    # the right data or untouched, never other bytes, and the damaged one is untouched.
    assert result[:start] == data[:start]
    assert result[start + chunk:] == old[start + chunk:]
    blocks = [result[i:i + BLOCK] in (data[i:i + BLOCK], old[i:i + BLOCK])
              for i in range(start, start + chunk, BLOCK)]
    assert all(blocks)
    assert result[start:start + chunk] != data[start:start + chunk]
    if algorithm == 'none':
        damaged = start + at // BLOCK * BLOCK
        assert result[damaged:damaged + BLOCK] == old[damaged:damaged + BLOCK]


def test_missing_or_extra_object_aborts_the_restore(posix_driver):
    driver = posix_driver()
    backup = stored(b := ref(), driver.backup(b, VolumeFile(_pattern(MiB))))
    container, prefix = driver.locate(backup)
    directory = os.path.join(driver.root, container)
    extra = os.path.join(directory, prefix + '-00099')
    open(extra, 'wb').close()
    with pytest.raises(exception.BackupChainInvalid, match='does not match'):
        _restore(driver, backup, MiB)
    os.unlink(extra)
    os.unlink(os.path.join(directory, records.object_name(prefix, 2)))
    with pytest.raises(exception.BackupChainInvalid, match='does not match'):
        _restore(driver, backup, MiB)


def test_truncated_object_is_corrupt(posix_driver):
    driver = posix_driver(backup_compression_algorithm='none')
    backup = stored(b := ref(), driver.backup(b, VolumeFile(_pattern(MiB))))
    container, prefix = driver.locate(backup)
    os.truncate(os.path.join(driver.root, container, records.object_name(prefix, 1)), 1000)
    with pytest.raises(exception.BackupRestoreCorrupt, match='short'):
        _restore(driver, backup, MiB)


def test_metadata_version_is_checked(posix_driver):
    driver = posix_driver()
    backup = stored(b := ref(), driver.backup(b, VolumeFile(_pattern(MiB))))
    container, prefix = driver.locate(backup)
    path = os.path.join(driver.root, container, records.metadata_name(prefix))
    with open(path) as f:
        meta = json.load(f)
    meta['version'] = '9.9.9'
    with open(path, 'w') as f:
        json.dump(meta, f)
    target = VolumeFile(b'\xee' * MiB)
    with pytest.raises(exception.BackupVersionUnsupported, match='9.9.9'):
        driver.restore(backup, 'vol-2', target, volume_is_new=False)
    assert target.getvalue() == b'\xee' * MiB


def test_restore_returns_the_newest_volume_meta(posix_driver):
    driver = posix_driver()
    data = _pattern(MiB)
    full = stored(b := ref(), driver.backup(b, VolumeFile(data), volume_meta={'n': 1}))
    inc = stored(b := ref(parent=full), driver.backup(b, VolumeFile(data)))
    assert driver.restore(inc, 'v', VolumeFile(bytes(MiB)), volume_is_new=True) == {'n': 1}
    last = stored(b := ref(parent=inc), driver.backup(b, VolumeFile(data), volume_meta={'n': 3}))
    assert driver.restore(last, 'v', VolumeFile(bytes(MiB)), volume_is_new=True) == {'n': 3}


def test_progress_reaches_the_total_and_can_cancel(posix_driver):
    driver = posix_driver()
    data = _pattern(9 * MiB)
    seen = []
    backup = stored(b := ref(), driver.backup(b, VolumeFile(data),
                                              progress=lambda d, t: seen.append((d, t))))
    assert seen[-1] == (len(data), len(data))
    assert [d for d, _ in seen] == sorted(d for d, _ in seen) and len(seen) > 1
    restored = []
    driver.restore(backup, 'v', VolumeFile(bytes(len(data))), volume_is_new=True,
                   progress=lambda d, t: restored.append((d, t)))
    assert restored[-1] == (len(data), len(data))

    class Cancelled(Exception):
        pass

    def cancel(done, total):
        raise Cancelled()

    doomed = ref()
    with pytest.raises(Cancelled):
        driver.backup(doomed, VolumeFile(data), progress=cancel)
    # Nothing of the cancelled backup is left.
    container, prefix = driver.locate(doomed)
    assert driver.list_objects(container, prefix) == []


def test_failed_backup_leaves_no_objects(posix_driver):
    driver = posix_driver()

    class Failing(VolumeFile):
        def read(self, n=-1):
            if self.tell() >= MiB:
                raise OSError('device gone')
            return super().read(n)

    backup = ref()
    with pytest.raises(OSError, match='device gone'):
        driver.backup(backup, Failing(_pattern(12 * MiB)))
    assert driver.list_objects(*driver.locate(backup)) == []


def test_delete_is_idempotent_and_finds_an_unreported_backup(posix_driver):
    driver = posix_driver()
    backup = ref()
    updates = driver.backup(backup, VolumeFile(_pattern(MiB)))
    directory = os.path.join(driver.root, updates['container'])
    assert os.listdir(directory)
    # The manager never saved the row updates (its service died): the ref has no locator.
    driver.delete_backup(backup)
    assert not os.path.exists(directory)
    driver.delete_backup(stored(backup, updates))
    driver.delete_backup(backup)


def test_a_second_attempt_replaces_the_first(posix_driver):
    driver = posix_driver(backup_compression_algorithm='none')
    backup = ref()
    driver.backup(backup, VolumeFile(_pattern(4 * MiB)))
    data = _pattern(MiB, seed=2)
    updates = driver.backup(backup, VolumeFile(data))
    assert updates['object_count'] == len(driver.list_objects(*driver.locate(backup))) - 2
    assert _restore(driver, stored(backup, updates), MiB) == data


def test_export_then_import_into_a_fresh_driver_restores_the_same_bytes(posix_driver):
    driver = posix_driver()
    data = _pattern(MiB)
    backup = stored(b := ref(), driver.backup(b, VolumeFile(data)))
    info = driver.export_record(backup)
    assert json.loads(json.dumps(info)) == info
    assert info['service_metadata'] == backup.service_metadata

    fresh = posix_driver()
    fresh.import_record(backup, info)
    assert _restore(fresh, backup, len(data)) == data
    # A record imported under another id (tempest's export/import does it) names the same
    # objects, and restores the same bytes.
    renamed = stored(ref(), {'container': backup.container,
                             'service_metadata': backup.service_metadata})
    fresh.import_record(renamed, info)
    assert _restore(fresh, renamed, len(data)) == data
    gone = stored(backup, {'container': backup.container, 'service_metadata': 'nothing'})
    with pytest.raises(exception.BackupObjectNotFound):
        fresh.import_record(gone, info)


def _cinder_made(driver, backup, data, *, chunk, block):
    """Objects as Cinder's chunked driver writes them: each chunk compressed whole with the
    module's compress(), md5 of the raw chunk, sha256 per block, Cinder's JSON layout."""
    container, prefix = driver.locate(backup)
    directory = os.path.join(driver.root, container)
    os.makedirs(directory)
    objects = []
    for number, offset in enumerate(range(0, len(data), chunk), start=1):
        raw = data[offset:offset + chunk]
        name = f'{prefix}-{number:05d}'
        with open(os.path.join(directory, name), 'wb') as f:
            f.write(zlib.compress(raw))
        objects.append({name: {'offset': offset, 'length': len(raw), 'compression': 'zlib',
                               'md5': hashlib.md5(raw).hexdigest()}})
    common = {'version': '1.0.0', 'backup_id': backup.id, 'volume_id': backup.volume_id,
              'backup_name': 'from cinder', 'backup_description': None,
              'created_at': str(backup.created_at)}
    sha256s = [sha(data[i:i + block]) for i in range(0, len(data), block)]
    for name, doc in ((f'{prefix}_sha256file', {**common, 'chunk_size': block,
                                                'sha256s': sha256s}),
                      (f'{prefix}_metadata', {**common, 'objects': objects, 'parent_id': None,
                                              'volume_meta': None})):
        with open(os.path.join(directory, name), 'w') as f:
            f.write(json.dumps(doc, sort_keys=True, indent=2))


def test_a_backup_cinder_wrote_restores_and_takes_incrementals(posix_driver):
    driver = posix_driver()
    data = bytearray(_pattern(2 * MiB))
    full = ref()
    _cinder_made(driver, full, bytes(data), chunk=8 * BLOCK, block=BLOCK)
    full = stored(full, {'container': driver.default_container(full),
                         'service_metadata': driver.object_prefix(full)})
    assert _restore(driver, full, len(data)) == bytes(data)
    data[100:200] = b'z' * 100
    inc = stored(b := ref(parent=full), driver.backup(b, VolumeFile(bytes(data))))
    assert [e['length'] for entry in _meta(driver, inc)['objects'] for e in entry.values()] \
        == [BLOCK]
    assert _restore(driver, inc, len(data)) == bytes(data)
