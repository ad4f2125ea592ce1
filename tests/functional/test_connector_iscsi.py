"""open_volume on the connection info of real exports: a file-driver volume as LUN 1 of a
private tgtd (CHAP) through qemu-nbd's libiscsi driver, and raw and qcow2 file-driver volumes
opened locally. Bytes written through the connector are read back by another path (qemu-img
on the iscsi:// URL, the backing file) and compared by sha256."""

import dataclasses
import hashlib
import os
import subprocess
import urllib.parse
import uuid

import pytest

from cinderlike import connector, exception
from cinderlike.conf import volume as volume_conf
from cinderlike.drivers.volume import base, file
from tests.fixtures import connector as leftovers
from tests.fixtures import daemons
from tests.fixtures import tgt as tgt_fixtures

pytestmark = [pytest.mark.tgt, pytest.mark.qemu_img]
tgtd = tgt_fixtures.tgtd
private_tmp = leftovers.private_tmp

MiB = 1024 ** 2
GiB = 1024 ** 3
OFFSET = 5 * MiB + 512
INITIATOR = 'iqn.2010-10.org.openstack:initiator-connector-test'


def _driver(tmp_path, backend, **options):
    conf = daemons.make_conf(state_path=str(tmp_path))
    configuration = volume_conf.register_backend(conf, backend, file.DRIVER_OPTS)
    for name, value in options.items():
        conf.set_override(name, value, group=backend)
    made = file.FileDriver(configuration, host=f'h@{backend}')
    made.do_setup(None)
    made.check_for_setup_error()
    return made


@pytest.fixture
def iscsi_driver(tmp_path, tgtd):
    return _driver(tmp_path, 'iscsi-1', target_helper='tgtadm', target_ip_address='127.0.0.1',
                   target_port=tgtd.portal_port, tgt_control_port=tgtd.control_port)


def _exported(driver, size=1):
    volume_id = str(uuid.uuid4())
    volume = base.VolumeRef(id=volume_id, name_id=volume_id, size=size)
    volume = dataclasses.replace(volume, **driver.create_volume(volume))
    return dataclasses.replace(volume, **driver.create_export(volume, None))


def _url(data):
    auth = (f"{urllib.parse.quote(data['auth_username'])}%"
            f"{urllib.parse.quote(data['auth_password'])}@")
    return f"iscsi://{auth}{data['target_portal']}/{data['target_iqn']}/{data['target_lun']}"


def _sha_by_qemu_img(source, fmt, offset, length, out):
    """sha256 of the range as qemu-img reads it (512-byte blocks: dd counts from 0)."""
    done = subprocess.run(
        ['qemu-img', 'dd', '-f', fmt, '-O', 'raw', f'if={source}', f'of={out}', 'bs=512',
         f'skip={offset // 512}', f'count={(offset + length) // 512}'],
        capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    with open(out, 'rb') as data:
        return hashlib.sha256(data.read()).hexdigest()


def _sessions(tgtd):
    return [line.split(':', 1)[1].strip() for line in
            tgtd.tgtadm('--op', 'show', '--mode', 'target').stdout.splitlines()
            if line.strip().startswith('Initiator:')]


def test_bytes_written_through_the_lun_are_the_volumes(iscsi_driver, tgtd, tmp_path,
                                                         private_tmp):
    volume = _exported(iscsi_driver)
    info = iscsi_driver.initialize_connection(volume, {'initiator': INITIATOR})
    pattern = os.urandom(9 * MiB)
    with connector.open_volume(info, writable=True, initiator=INITIATOR) as attached:
        assert attached.size == GiB
        # The password reaches qemu-nbd in a file, never on a command line.
        (pid,) = leftovers.qemu_nbd_children()
        with open(f'/proc/{pid}/cmdline', 'rb') as cmdline:
            argv = cmdline.read()
        assert info['data']['auth_password'].encode() not in argv
        assert info['data']['auth_username'].encode() in argv
        assert [s.split(' ')[0] for s in _sessions(tgtd)] == [INITIATOR]
        attached.seek(OFFSET)
        attached.write(pattern)
    leftovers.assert_detached(private_tmp)
    assert _sessions(tgtd) == []

    expected = hashlib.sha256(pattern).hexdigest()
    assert _sha_by_qemu_img(_url(info['data']), 'raw', OFFSET, len(pattern),
                            tmp_path / 'lun') == expected
    with open(iscsi_driver.path(volume), 'rb') as backing:
        backing.seek(OFFSET)
        assert hashlib.sha256(backing.read(len(pattern))).hexdigest() == expected

    with connector.open_volume(info, writable=False) as attached:
        # 512-byte LUN blocks: an unaligned read is served from the blocks around it.
        attached.seek(OFFSET + 7)
        assert attached.read(1000) == pattern[7:1007]
        attached.seek(OFFSET)
        got = hashlib.sha256()
        while attached.tell() < OFFSET + len(pattern):
            got.update(attached.read(min(4 * MiB, OFFSET + len(pattern) - attached.tell())))
        assert got.hexdigest() == expected
    leftovers.assert_detached(private_tmp)
    iscsi_driver.remove_export(volume)
    iscsi_driver.delete_volume(volume)


def test_unaligned_writes_keep_the_bytes_around_them(iscsi_driver, private_tmp):
    """The LUN has 512-byte blocks: partial blocks are read, merged and written whole."""
    volume = _exported(iscsi_driver)
    info = iscsi_driver.initialize_connection(volume, {})
    around = os.urandom(4096)
    inside = os.urandom(1500)
    with connector.open_volume(info, writable=True) as attached:
        attached.seek(OFFSET)
        attached.write(around)
        attached.seek(OFFSET + 300)
        attached.write(inside)
        attached.seek(OFFSET + 3000)
        attached.write(b'x')
    expected = around[:300] + inside + around[1800:3000] + b'x' + around[3001:]
    with open(iscsi_driver.path(volume), 'rb') as backing:
        backing.seek(OFFSET)
        assert backing.read(4096) == expected
    leftovers.assert_detached(private_tmp)
    iscsi_driver.remove_export(volume)
    iscsi_driver.delete_volume(volume)


def test_a_wrong_chap_password_is_refused_and_leaves_nothing(iscsi_driver, tgtd,
                                                             private_tmp):
    volume = _exported(iscsi_driver)
    info = iscsi_driver.initialize_connection(volume, {})
    wrong = {**info, 'data': {**info['data'], 'auth_password': 'Wrong2PasswordXy'}}
    with pytest.raises(exception.FailedISCSITargetPortalLogin) as raised:
        with connector.open_volume(wrong, writable=True):
            pytest.fail('logged in with a wrong password')
    message = str(raised.value)
    assert message.startswith(
        f"Unable to login to iSCSI Target Portal {info['data']['target_portal']}: ")
    assert 'Authentication failure' in message
    assert 'Wrong2PasswordXy' not in message
    leftovers.assert_detached(private_tmp)
    assert _sessions(tgtd) == []
    iscsi_driver.remove_export(volume)
    iscsi_driver.delete_volume(volume)


def test_an_error_in_the_block_detaches_and_the_lun_opens_again(iscsi_driver, tgtd,
                                                                private_tmp):
    volume = _exported(iscsi_driver)
    info = iscsi_driver.initialize_connection(volume, {})
    with pytest.raises(RuntimeError, match='backup failed'):
        with connector.open_volume(info, writable=True) as attached:
            attached.write(b'first'.ljust(512, b'\0'))
            raise RuntimeError('backup failed')
    leftovers.assert_detached(private_tmp)
    assert _sessions(tgtd) == []
    with connector.open_volume(info, writable=False) as attached:
        assert attached.read(5) == b'first'
    leftovers.assert_detached(private_tmp)
    iscsi_driver.remove_export(volume)
    iscsi_driver.delete_volume(volume)


def test_a_removed_export_fails_to_attach(iscsi_driver, private_tmp):
    volume = _exported(iscsi_driver)
    info = iscsi_driver.initialize_connection(volume, {})
    iscsi_driver.remove_export(volume)
    with pytest.raises(exception.VolumeAttachFailed):
        with connector.open_volume(info, writable=False):
            pytest.fail('attached a removed export')
    leftovers.assert_detached(private_tmp)
    iscsi_driver.delete_volume(volume)


@pytest.mark.parametrize('fmt', ['raw', 'qcow2'])
def test_a_local_file_volume_is_opened_as_its_logical_bytes(tmp_path, private_tmp, fmt):
    driver = _driver(tmp_path, f'{fmt}-1', file_volume_format=fmt)
    volume_id = str(uuid.uuid4())
    volume = base.VolumeRef(id=volume_id, name_id=volume_id, size=2)
    volume = dataclasses.replace(volume, **driver.create_volume(volume))
    info = driver.initialize_connection(volume, {})
    assert info['driver_volume_type'] == 'local'
    pattern = os.urandom(6 * MiB)
    with connector.open_volume(info, writable=True) as attached:
        assert attached.size == 2 * GiB
        attached.seek(GiB + OFFSET)
        attached.write(pattern)
    leftovers.assert_detached(private_tmp)
    path = driver.path(volume)
    if fmt == 'qcow2':
        assert os.path.getsize(path) < GiB
    assert _sha_by_qemu_img(path, fmt, GiB + OFFSET, len(pattern), tmp_path / 'out') == \
        hashlib.sha256(pattern).hexdigest()
    driver.delete_volume(volume)
