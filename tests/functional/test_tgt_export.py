"""The file driver's iSCSI export through a real user-space tgtd: a host that knows only the
connection info (portal, IQN, LUN, CHAP user and password) writes and reads the volume with
qemu's libiscsi client; wrong credentials, a removed export and a restarted tgtd are refused
until the driver exports again."""

import concurrent.futures
import dataclasses
import hashlib
import os
import subprocess
import urllib.parse
import uuid

import pytest

from cinderlike import connector
from cinderlike.conf import volume as volume_conf
from cinderlike.drivers.volume import base, file
from tests.fixtures import daemons
from tests.fixtures import tgt as tgt_fixtures

pytestmark = [pytest.mark.tgt, pytest.mark.qemu_img]
tgtd = tgt_fixtures.tgtd

MiB = 1024 ** 2
GiB = 1024 ** 3
OFFSET = 3 * MiB  # where the pattern goes, in 64 KiB blocks
PATTERN = hashlib.sha256(b'cinderlike').digest() * (256 * 1024 // 32)  # 256 KiB
BLOCK = 64 * 1024


@pytest.fixture
def driver(tmp_path, tgtd):
    conf = daemons.make_conf(state_path=str(tmp_path))
    configuration = volume_conf.register_backend(conf, 'iscsi-1', file.DRIVER_OPTS)
    for name, value in {'target_helper': 'tgtadm', 'target_ip_address': '127.0.0.1',
                        'target_port': tgtd.portal_port,
                        'tgt_control_port': tgtd.control_port}.items():
        conf.set_override(name, value, group='iscsi-1')
    made = file.FileDriver(configuration, host='h@iscsi-1')
    made.do_setup(None)
    made.check_for_setup_error()
    return made


def _url(data, password=None, username=None):
    """The libiscsi URL of the connection info: iscsi://user%password@portal/iqn/lun."""
    username = data['auth_username'] if username is None else username
    password = data['auth_password'] if password is None else password
    auth = f'{urllib.parse.quote(username)}%{urllib.parse.quote(password)}@' if username else ''
    return f"iscsi://{auth}{data['target_portal']}/{data['target_iqn']}/{data['target_lun']}"


def _qemu(*args):
    return subprocess.run(args, capture_output=True, text=True, timeout=60)


def _write(url, source):
    done = _qemu('qemu-io', '-f', 'raw', '-c', f'write -s {source} {OFFSET} {len(PATTERN)}',
                 url)
    assert done.returncode == 0, done.stderr


def _read(url, out):
    """sha256 of the pattern's range as the host reads it.

    NOTE(dd): qemu-img dd's count includes the skipped blocks (it copies count - skip).
    """
    done = _qemu('qemu-img', 'dd', '-f', 'raw', '-O', 'raw', f'if={url}', f'of={out}',
                 f'bs={BLOCK}', f'skip={OFFSET // BLOCK}',
                 f'count={(OFFSET + len(PATTERN)) // BLOCK}')
    assert done.returncode == 0, done.stderr
    with open(out, 'rb') as data:
        return hashlib.sha256(data.read()).hexdigest()


def _login_refused(url, status=None):
    """libiscsi's iscsi-inq logs in to the LUN; tgtd must refuse (with *status*, if given).

    NOTE(no-target): a tgtd with no target at all drops the login instead of answering
    'Target not found', so a removed export is checked as a failed login only.
    """
    done = _qemu('iscsi-inq', url)
    out = done.stdout + done.stderr
    return done.returncode != 0 and 'Login Failed' in out and (
        status is None or f'Failed to log in to target. Status: {status}' in out)


AUTH_FAILED = 'Authentication failure'


def _backing_bytes(driver, volume):
    with open(driver.path(volume), 'rb') as image:
        image.seek(OFFSET)
        return image.read(len(PATTERN))


def test_host_with_the_connection_info_reaches_the_data_only_while_exported(
        driver, tgtd, tmp_path):
    volume_id = str(uuid.uuid4())
    volume = base.VolumeRef(id=volume_id, name_id=volume_id, size=1)
    volume = dataclasses.replace(volume, **driver.create_volume(volume))

    exported = dataclasses.replace(volume, **driver.create_export(volume, {'initiator': 'x'}))
    iqn = f'iqn.2010-10.org.openstack:volume-{volume_id}'
    assert exported.provider_location == f'{tgtd.portal},1 {iqn} 1'
    info = driver.initialize_connection(exported, {'initiator': 'x'})
    data = info['data']
    assert info['driver_volume_type'] == 'iscsi'
    assert (data['target_portal'], data['target_iqn'], data['target_lun']) == (
        tgtd.portal, iqn, 1)
    assert data['auth_method'] == 'CHAP'
    assert exported.provider_auth == f"CHAP {data['auth_username']} {data['auth_password']}"

    source = tmp_path / 'pattern'
    source.write_bytes(PATTERN)
    _write(_url(data), source)
    assert _backing_bytes(driver, volume) == PATTERN
    expected = hashlib.sha256(PATTERN).hexdigest()
    assert _read(_url(data), tmp_path / 'read') == expected

    assert _login_refused(_url(data, password='Wrong2PasswordXy'), AUTH_FAILED)
    assert _login_refused(_url(data, username=''), AUTH_FAILED)
    assert _login_refused(_url(data, username='someone-else'), AUTH_FAILED)

    driver.remove_export(exported)
    assert tgtd.target_ids() == []
    assert not os.path.exists(os.path.join(driver.configuration.volumes_dir, volume.name))
    assert _login_refused(_url(data))

    # Exported again, the volume keeps its credentials (Cinder reads them back).
    again = dataclasses.replace(exported, **driver.create_export(exported, None))
    assert again.provider_auth == exported.provider_auth
    assert _read(_url(data), tmp_path / 'again') == expected

    # tgtd stopped cleanly and started again has no targets until the driver's
    # ensure_export (what init_host calls) brings the volume's back.
    tgtd.restart()
    assert tgtd.target_ids() == []
    assert _login_refused(_url(data))
    driver.ensure_export(again)
    assert _read(_url(data), tmp_path / 'ensured') == expected
    assert _login_refused(_url(data, password='Wrong2PasswordXy'), AUTH_FAILED)

    driver.remove_export(again)
    driver.delete_volume(again)
    assert tgtd.target_ids() == [] and not os.path.exists(driver.path(volume))


def _new_volume(driver):
    volume_id = str(uuid.uuid4())
    volume = base.VolumeRef(id=volume_id, name_id=volume_id, size=1)
    return dataclasses.replace(volume, **driver.create_volume(volume))


def _lun_size(url):
    done = _qemu('iscsi-readcapacity16', url)
    assert done.returncode == 0, done.stderr
    return int(done.stdout.split('Total size:')[1].split()[0])


def test_exported_volume_extended_and_reverted_is_served_as_it_is_now(driver, tmp_path):
    """tgtd holds the file open: extend and revert rebuild the target from its file."""
    volume = _new_volume(driver)
    volume = dataclasses.replace(volume, **driver.create_export(volume, None))
    url = _url(driver.initialize_connection(volume, {})['data'])
    source = tmp_path / 'pattern'
    source.write_bytes(PATTERN)
    _write(url, source)
    snapshot = base.SnapshotRef(id=str(uuid.uuid4()), volume=volume, volume_size=1)
    driver.create_snapshot(snapshot)
    source.write_bytes(bytes(reversed(PATTERN)))
    _write(url, source)
    assert _backing_bytes(driver, volume) == bytes(reversed(PATTERN))

    driver.revert_to_snapshot(volume, snapshot)
    assert _read(url, tmp_path / 'reverted') == hashlib.sha256(PATTERN).hexdigest()

    assert _lun_size(url) == GiB
    driver.extend_volume(volume, 2)
    assert _lun_size(url) == 2 * GiB
    assert _read(url, tmp_path / 'extended') == hashlib.sha256(PATTERN).hexdigest()

    driver.remove_export(volume)
    driver.delete_snapshot(snapshot)
    driver.delete_volume(volume)


def test_concurrent_exports_each_get_a_target_only_their_credentials_open(driver, tgtd,
                                                                          tmp_path):
    """tgt-admin picks tids itself: exports at once must not collide (the helper's lock)."""
    volumes = [_new_volume(driver) for _ in range(6)]
    with concurrent.futures.ThreadPoolExecutor(len(volumes)) as pool:
        exports = list(pool.map(lambda v: driver.create_export(v, None), volumes))
    refs = [dataclasses.replace(v, **e) for v, e in zip(volumes, exports, strict=True)]
    tids = {ref.provider_location.split(' ')[0].split(',')[1] for ref in refs}
    assert len(tids) == 6 and sorted(tgtd.target_ids()) == sorted(tids)

    first, second = (driver.initialize_connection(ref, {})['data'] for ref in refs[:2])
    assert first['auth_username'] != second['auth_username']
    assert _read(_url(second), tmp_path / 'own') == hashlib.sha256(
        bytes(len(PATTERN))).hexdigest()
    crossed = dict(second, auth_username=first['auth_username'],
                   auth_password=first['auth_password'])
    assert _login_refused(_url(crossed), AUTH_FAILED)

    with concurrent.futures.ThreadPoolExecutor(len(refs)) as pool:
        list(pool.map(driver.remove_export, refs))
    assert tgtd.target_ids() == []


def test_restarted_tgtd_reading_volumes_dir_brings_every_target_back(driver, tgtd,
                                                                     tmp_path):
    """As Cinder's deployments do: tgt's configuration includes `<volumes_dir>/*`, so
    `tgt-admin --execute` at tgtd's start re-creates every exported volume's target."""
    refs = []
    for _ in range(2):
        volume_id = str(uuid.uuid4())
        volume = base.VolumeRef(id=volume_id, name_id=volume_id, size=1)
        driver.create_volume(volume)
        refs.append(dataclasses.replace(volume, **driver.create_export(volume, None)))
    source = tmp_path / 'pattern'
    source.write_bytes(PATTERN)
    urls = [_url(driver.initialize_connection(ref, {})['data']) for ref in refs]
    _write(urls[0], source)

    tgtd.restart()
    tgt_conf = tmp_path / 'targets.conf'
    tgt_conf.write_text(f'include {driver.configuration.volumes_dir}/*\n')
    subprocess.run(['tgt-admin', '-C', str(tgtd.control_port), '--execute', '--conf',
                    str(tgt_conf)], check=True, capture_output=True)

    assert len(tgtd.target_ids()) == 2
    assert _read(urls[0], tmp_path / 'first') == hashlib.sha256(PATTERN).hexdigest()
    assert _read(urls[1], tmp_path / 'second') == hashlib.sha256(
        bytes(len(PATTERN))).hexdigest()
    for ref in refs:
        driver.remove_export(ref)
        driver.delete_volume(ref)
    assert tgtd.target_ids() == []


def test_a_snapshot_is_exported_with_chap_and_read_over_iscsi_by_a_backup_host(
        driver, tgtd, tmp_path):
    volume = _new_volume(driver)
    with open(driver.path(volume), 'r+b') as image:
        image.seek(OFFSET)
        image.write(PATTERN)
    snapshot_id = str(uuid.uuid4())
    snapshot = base.SnapshotRef(id=snapshot_id, volume=volume, volume_size=1)
    snapshot = dataclasses.replace(snapshot, **driver.create_snapshot(snapshot))
    with open(driver.path(volume), 'r+b') as image:
        image.seek(OFFSET)
        image.write(bytes(len(PATTERN)))  # the volume moves on; the snapshot keeps the data

    exported = dataclasses.replace(snapshot, **driver.create_export_snapshot(snapshot, {}))
    info = driver.initialize_connection_snapshot(exported, {'initiator': 'x'})
    data = info['data']
    iqn = f'iqn.2010-10.org.openstack:snapshot-{snapshot_id}'
    assert info['driver_volume_type'] == 'iscsi'
    assert (data['target_portal'], data['target_iqn'], data['auth_method'],
            data['access_mode']) == (tgtd.portal, iqn, 'CHAP', 'ro')
    # What the backup host does: cinderlike.connector opens the connection info.
    with connector.open_volume(info, writable=False) as opened:
        assert opened.size == GiB
        opened.seek(OFFSET)
        assert opened.read(len(PATTERN)) == PATTERN
    assert _login_refused(_url(data, password='Wrong2PasswordXy'), AUTH_FAILED)

    driver.remove_export_snapshot(exported)
    assert tgtd.target_ids() == []
    assert _login_refused(_url(data))
    driver.delete_snapshot(exported)
    driver.delete_volume(volume)
