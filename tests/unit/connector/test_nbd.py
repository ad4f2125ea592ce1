"""The NBD client's framing against a real qemu-nbd on temporary images: handshake and
export info, reads and writes split at the server's maximum block size, FLUSH and DISC,
error replies, and the local qcow2 attachment (logical bytes, no backing file)."""

import errno
import hashlib
import os
import socket
import subprocess

import pytest

from cinderlike import connector, exception
from cinderlike.connector import nbd, nbd_attach, qemu_nbd
from tests.fixtures import connector as leftovers

pytestmark = pytest.mark.qemu_img
private_tmp = leftovers.private_tmp

MiB = 1024 ** 2


def _qemu_img(*args):
    done = subprocess.run(['qemu-img', *args], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _image(tmp_path, fmt, size_mib=64, name=None):
    path = tmp_path / (name or f'volume.{fmt}')
    _qemu_img('create', '-f', fmt, str(path), f'{size_mib}M')
    return path


def _dump(path, fmt, offset, length, out):
    """sha256 of *length* bytes at *offset* as qemu-img reads the image (not our client)."""
    _qemu_img('dd', '-f', fmt, '-O', 'raw', f'if={path}', f'of={out}', f'bs={MiB}',
              f'skip={offset // MiB}', f'count={(offset + length) // MiB}')
    with open(out, 'rb') as data:
        return hashlib.sha256(data.read()).hexdigest()


def _raw_server(path, *, writable=True):
    image = {'driver': 'raw', 'file': {'driver': 'file', 'filename': str(path)}}
    return qemu_nbd.Server(image, writable=writable, device=str(path))


def test_handshake_reports_the_export_and_qemu_nbd_exits_after_disc(tmp_path, private_tmp):
    path = _image(tmp_path, 'raw', 48)
    server = _raw_server(path)
    client = server.start()
    export = client.export
    assert export.size == 48 * MiB
    assert (export.min_block, export.max_block) == (1, 32 * MiB)
    assert not export.read_only and export.can_flush
    client.disconnect()
    server.stop()
    assert server.process.returncode == 0
    leftovers.assert_detached(private_tmp)


def test_io_larger_than_the_max_block_is_split_and_lands_where_asked(tmp_path, private_tmp):
    """40 MiB in one call: qemu-nbd refuses requests over 32 MiB, so it must be split."""
    path = _image(tmp_path, 'raw', 64)
    pattern = os.urandom(40 * MiB)
    server = _raw_server(path)
    client = server.start()
    try:
        client.pwrite(8 * MiB, memoryview(pattern))
        client.flush()
        back = bytearray(len(pattern))
        client.pread(8 * MiB, memoryview(back))
    finally:
        client.disconnect()
        server.stop()
    assert hashlib.sha256(back).digest() == hashlib.sha256(pattern).digest()
    assert _dump(path, 'raw', 8 * MiB, len(pattern), tmp_path / 'out') == \
        hashlib.sha256(pattern).hexdigest()
    leftovers.assert_detached(private_tmp)


def test_an_error_reply_is_an_oserror_and_the_connection_goes_on(tmp_path, private_tmp):
    """qemu's blkdebug fails every read with EIO; the simple reply carries the errno."""
    path = _image(tmp_path, 'raw', 8)
    image = {'driver': 'raw', 'file': {
        'driver': 'blkdebug',
        'inject-error': [{'event': 'none', 'iotype': 'read', 'errno': errno.EIO}],
        'image': {'driver': 'file', 'filename': str(path)}}}
    server = qemu_nbd.Server(image, writable=True, device=str(path))
    client = server.start()
    try:
        with pytest.raises(OSError) as raised:
            client.pread(0, memoryview(bytearray(4096)))
        assert raised.value.errno == errno.EIO
        client.pwrite(0, memoryview(b'after the error'.ljust(512, b'.')))
        client.flush()
    finally:
        client.disconnect()
        server.stop()
    with open(path, 'rb') as data:
        assert data.read(15) == b'after the error'
    leftovers.assert_detached(private_tmp)


def test_a_read_only_export_refuses_writes_before_they_are_sent(tmp_path, private_tmp):
    path = _image(tmp_path, 'raw', 8)
    server = _raw_server(path, writable=False)
    client = server.start()
    try:
        assert client.export.read_only
        with pytest.raises(OSError) as raised:
            client.pwrite(0, memoryview(b'x' * 512))
        assert raised.value.errno == errno.EROFS
        with pytest.raises(OSError) as raised:
            client.pread(8 * MiB - 1, memoryview(bytearray(2)))
        assert raised.value.errno == errno.ENOSPC
    finally:
        client.disconnect()
        server.stop()
    leftovers.assert_detached(private_tmp)


def test_a_server_that_is_not_nbd_is_refused():
    ours, theirs = socket.socketpair()
    with theirs:
        theirs.sendall(b'HTTP/1.1 400 Bad Request\r\n\r\n')
        client = nbd.Client(ours, server='not-nbd')
        with pytest.raises(exception.NBDError,
                           match='NBD connection to not-nbd failed: not a newstyle NBD server'):
            client.handshake()
        client.close()


def test_an_image_qemu_nbd_cannot_open_fails_with_its_words(tmp_path, private_tmp):
    broken = tmp_path / 'broken.qcow2'
    broken.write_bytes(b'QFI\xfb' + bytes(508))
    with pytest.raises(exception.VolumeAttachFailed) as raised:
        with connector.open_volume({'driver_volume_type': 'local',
                                    'data': {'device_path': str(broken)}}, writable=False):
            pytest.fail('opened')
    assert str(raised.value).startswith(f'Unable to attach volume {broken}: qemu-nbd: ')
    leftovers.assert_detached(private_tmp)


def test_local_qcow2_is_read_and_written_as_its_logical_bytes(tmp_path, private_tmp):
    path = _image(tmp_path, 'qcow2', 96)
    info = {'driver_volume_type': 'local', 'data': {'device_path': str(path)}}
    pattern = os.urandom(9 * MiB)
    with connector.open_volume(info, writable=True) as volume:
        assert volume.size == 96 * MiB
        volume.seek(80 * MiB)
        volume.write(pattern)
    # The file holds clusters, not the volume's bytes at their offsets.
    assert os.path.getsize(path) < 80 * MiB
    assert _dump(path, 'qcow2', 80 * MiB, len(pattern), tmp_path / 'out') == \
        hashlib.sha256(pattern).hexdigest()
    with connector.open_volume(info, writable=False) as volume:
        volume.seek(80 * MiB + 3)
        assert volume.read(10) == pattern[3:13]
        assert volume.read(len(pattern) - 13) == pattern[13:]
    leftovers.assert_detached(private_tmp)


def test_a_probed_qcow2_is_opened_without_its_backing_file(tmp_path, private_tmp):
    """A guest that writes a qcow2 header naming a host file into its raw volume must not
    make the host read that file."""
    secret = tmp_path / 'host-secret'
    secret.write_bytes(b'S' * MiB)
    overlay = tmp_path / 'overlay.qcow2'
    _qemu_img('create', '-f', 'qcow2', '-b', str(secret), '-F', 'raw', str(overlay), '1M')
    info = {'driver_volume_type': 'local', 'data': {'device_path': str(overlay)}}
    with connector.open_volume(info, writable=False) as volume:
        assert volume.read(MiB) == bytes(MiB)
    leftovers.assert_detached(private_tmp)


def test_qcow2_with_an_external_data_file_is_refused(tmp_path, private_tmp):
    path = tmp_path / 'external.qcow2'
    _qemu_img('create', '-f', 'qcow2', '-o', f'data_file={tmp_path / "data.raw"}', str(path),
              '1M')
    with pytest.raises(exception.VolumeAttachFailed, match='external data file are refused'):
        with nbd_attach.attach_qcow2(str(path), writable=False):
            pytest.fail('opened')
    leftovers.assert_detached(private_tmp)


def test_qemu_nbd_is_gone_when_the_block_raises(tmp_path, private_tmp):
    path = _image(tmp_path, 'qcow2', 8)
    info = {'driver_volume_type': 'local', 'data': {'device_path': str(path)}}
    with pytest.raises(RuntimeError, match='backup failed'):
        with connector.open_volume(info, writable=True) as volume:
            volume.write(b'partial')
            assert len(leftovers.qemu_nbd_children()) == 1
            raise RuntimeError('backup failed')
    leftovers.assert_detached(private_tmp)
    with connector.open_volume(info, writable=False) as volume:
        assert volume.read(7) == b'partial'


def test_a_client_gone_without_disc_still_ends_qemu_nbd(tmp_path, private_tmp):
    """A backup process that dies mid-transfer closes its socket without NBD_CMD_DISC."""
    path = _image(tmp_path, 'raw', 8)
    server = _raw_server(path)
    client = server.start()
    client.pread(0, memoryview(bytearray(MiB)))
    client.close()
    server.stop()
    assert server.process.returncode == 0
    leftovers.assert_detached(private_tmp)
