"""open_volume on `local` raw files, and the connection infos it refuses."""

import hashlib
import io
import os

import pytest

from cinderlike import connector, exception

MiB = 1024 ** 2


def _local(path, **data):
    return {'driver_volume_type': 'local', 'data': {'device_path': str(path), **data}}


@pytest.fixture
def raw(tmp_path):
    path = tmp_path / 'volume-1'
    with open(path, 'wb') as image:
        image.truncate(8 * MiB)
    return path


def test_bytes_written_are_read_back_and_land_in_the_file(raw):
    pattern = os.urandom(3 * MiB + 17)
    with connector.open_volume(_local(raw), writable=True) as volume:
        assert (volume.size, volume.tell()) == (8 * MiB, 0)
        assert volume.seek(MiB + 5) == MiB + 5
        assert volume.write(pattern) == len(pattern)
        assert volume.tell() == MiB + 5 + len(pattern)
        volume.flush()
    with connector.open_volume(_local(raw), writable=False) as volume:
        volume.seek(MiB + 5)
        assert hashlib.sha256(volume.read(len(pattern))).digest() == \
            hashlib.sha256(pattern).digest()
        buffer = bytearray(17)
        volume.seek(-17, os.SEEK_CUR)
        assert volume.readinto(buffer) == 17 and bytes(buffer) == pattern[-17:]
    with open(raw, 'rb') as image:
        image.seek(MiB + 5)
        assert image.read(len(pattern)) == pattern


def test_reads_stop_at_the_end_and_writes_past_it_fail_whole(raw):
    with connector.open_volume(_local(raw), writable=True) as volume:
        volume.seek(-5 * MiB - 10, os.SEEK_END)
        assert len(volume.read()) == 5 * MiB + 10
        volume.seek(-10, os.SEEK_END)
        assert len(volume.read(100)) == 10
        assert volume.read(100) == b''
        volume.seek(-10, os.SEEK_END)
        with pytest.raises(OSError, match='passes the end of the volume'):
            volume.write(b'x' * 11)
        with pytest.raises(OSError):
            volume.seek(-1)
    assert os.path.getsize(raw) == 8 * MiB
    with open(raw, 'rb') as image:
        assert image.read() == bytes(8 * MiB)


def test_a_volume_opened_for_reading_refuses_writes(raw):
    with connector.open_volume(_local(raw), writable=False) as volume:
        assert not volume.writable()
        with pytest.raises(io.UnsupportedOperation):
            volume.write(b'x')


def test_the_file_is_closed_when_the_block_raises(raw):
    with pytest.raises(RuntimeError):
        with connector.open_volume(_local(raw), writable=True) as volume:
            fd = volume.fileno()
            raise RuntimeError('backup failed')
    assert volume.closed
    with pytest.raises(OSError):
        os.fstat(fd)
    with pytest.raises(ValueError):
        volume.read(1)


@pytest.mark.parametrize('info, error, message', [
    ({'driver_volume_type': 'fake', 'data': {'volume_id': 'v'}}, exception.ProtocolNotSupported,
     'Connect to volume via protocol fake not supported.'),
    ({'driver_volume_type': 'rbd', 'data': {}}, exception.ProtocolNotSupported,
     'Connect to volume via protocol rbd not supported.'),
    ({'data': {}}, exception.ProtocolNotSupported,
     'Connect to volume via protocol None not supported.'),
    ({'driver_volume_type': 'local', 'data': {}}, exception.InvalidConnectionInfo,
     'Invalid local connection info: no device_path'),
    ({'driver_volume_type': 'iscsi', 'data': {'target_portal': '127.0.0.1:3260'}},
     exception.InvalidConnectionInfo, 'Invalid iscsi connection info: no target_iqn'),
    ({'driver_volume_type': 'iscsi', 'data': {
        'target_portal': 'p', 'target_iqn': 'iqn.x', 'target_lun': 1, 'auth_method': 'CHAP',
        'auth_username': 'u'}},
     exception.InvalidConnectionInfo, 'Invalid iscsi connection info: no auth_password'),
    ({'driver_volume_type': 'iscsi', 'data': {
        'target_portal': 'p', 'target_iqn': 'iqn.x', 'auth_method': 'kerberos'}},
     exception.InvalidConnectionInfo,
     'Invalid iscsi connection info: auth_method kerberos is not supported (CHAP only)'),
])
def test_connection_infos_that_cannot_be_opened_are_refused(info, error, message):
    with pytest.raises(error) as raised:
        with connector.open_volume(info, writable=False):
            pytest.fail('opened')
    assert str(raised.value) == message


def test_a_missing_file_and_a_bad_format_are_refused(raw, tmp_path):
    with pytest.raises(exception.VolumeDeviceNotFound,
                       match=f'Volume device not found at {tmp_path}/gone.'):
        with connector.open_volume(_local(tmp_path / 'gone'), writable=False):
            pytest.fail('opened')
    with pytest.raises(exception.InvalidConnectionInfo, match="format 'vmdk' is not one of"):
        with connector.open_volume(_local(raw, format='vmdk'), writable=False):
            pytest.fail('opened')


def test_read_only_attachments_are_not_opened_for_writing(raw):
    info = _local(raw, access_mode='ro', volume_id='vol-1')
    with pytest.raises(exception.BlockDeviceReadOnly, match='Block device vol-1 is Read-Only.'):
        with connector.open_volume(info, writable=True):
            pytest.fail('opened')
    with connector.open_volume(info, writable=False) as volume:
        assert volume.read(4) == bytes(4)
