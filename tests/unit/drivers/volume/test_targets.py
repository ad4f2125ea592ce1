"""drivers/volume/targets: CHAP generation, the tgt target file, the tgt commands and Cinder's
iSCSI connection info, with tgt's commands recorded (no tgtd needed)."""

import dataclasses
import os

import pytest
from os_brick.initiator.connectors import iscsi as brick_iscsi
from oslo_concurrency import processutils

from cinderlike import exception
from cinderlike.drivers.volume import base, file, targets
from cinderlike.drivers.volume.targets import chap, iscsi, tgt

VOLUME_ID = '6f1d8c4e-2b7a-4c55-9a63-0f4e8d2b1c7a'
IQN = f'iqn.2010-10.org.openstack:volume-{VOLUME_ID}'
CREDENTIALS = ('Ab3UserUserUserUser9', 'Pw4PasswordPass7')
AUTH = 'CHAP Ab3UserUserUserUser9 Pw4PasswordPass7'

SHOW_WITH_LUN = f"""Target 1: iqn.2010-10.org.openstack:volume-other
    LUN information:
        LUN: 0
        LUN: 1
Target 3: {IQN}
    System information:
        Driver: iscsi
    LUN information:
        LUN: 0
            Type: controller
        LUN: 1
            Type: disk
"""
SHOW_WITHOUT_LUN = f"""Target 3: {IQN}
    LUN information:
        LUN: 0
Target 4: iqn.2010-10.org.openstack:volume-other
    LUN information:
        LUN: 1
"""


class Tgt:
    """Records tgt commands; answers `--show` with `shows` in turn, fails where told."""

    def __init__(self, shows=(), fail=None):
        self.calls: list[tuple] = []
        self.shows = list(shows)
        self.fail = fail or {}

    def __call__(self, *cmd, **_kwargs):
        self.calls.append(cmd)
        for needle, error in self.fail.items():
            if needle in cmd:
                raise error
        if '--show' in cmd:
            return self.shows.pop(0), ''
        return '', ''


@pytest.fixture
def recorder(monkeypatch):
    def make(**kwargs):
        fake = Tgt(**kwargs)
        monkeypatch.setattr(processutils, 'execute', fake)
        return fake
    return make


def _target_files(tmp_path):
    """What tgt's `include <volumes_dir>/*` reads: the lock and staging files are dot files."""
    return [name for name in os.listdir(tmp_path / 'targets') if not name.startswith('.')]


def _conf(backend_conf, **options):
    options = {'target_helper': 'tgtadm', 'target_ip_address': '10.0.0.5',
               'tgt_control_port': 5, **options}
    return backend_conf(file.DRIVER_OPTS, **options)


def _ref(**fields):
    return base.VolumeRef(id=VOLUME_ID, name_id=VOLUME_ID, size=1, **fields)


def test_password_has_every_symbol_group_and_cinder_lengths():
    for _ in range(50):
        password, username = chap.generate_password(), chap.generate_username()
        assert len(password) == 16 and len(username) == 20
        for group in chap.SYMBOL_GROUPS:
            assert set(password) & set(group)
        assert set(password + username) <= set(''.join(chap.SYMBOL_GROUPS))
    assert not set('01IOl') & set(''.join(chap.SYMBOL_GROUPS))
    assert len({chap.generate_password() for _ in range(20)}) == 20
    assert len(chap.generate_password(2)) == 2


def test_provider_auth_round_trips_and_none_means_no_chap():
    assert chap.provider_auth(CREDENTIALS) == AUTH
    assert chap.parse(AUTH) == CREDENTIALS
    assert chap.parse(None) is None and chap.parse('') is None


def test_helper_follows_target_helper(backend_conf):
    assert isinstance(targets.target_for(_conf(backend_conf)), tgt.TgtAdm)
    assert targets.target_for(_conf(backend_conf, target_helper='fake')) is None


def test_target_file_is_cinders_volume_conf(backend_conf):
    helper = tgt.TgtAdm(_conf(backend_conf))
    text = helper.target_conf(_ref(), IQN, '/v/volume-x', CREDENTIALS)
    assert text == (f'\n<target {IQN}>\n'
                    '    backing-store /v/volume-x\n'
                    '    driver iscsi\n'
                    '    incominguser Ab3UserUserUserUser9 Pw4PasswordPass7\n'
                    '    \n'
                    '    write-cache on\n'
                    f'    scsi_sn volume-{VOLUME_ID}\n'
                    f'    scsi_id volume-{VOLUME_ID}\n'
                    '</target>\n')


def test_target_flags_and_write_through(backend_conf):
    helper = tgt.TgtAdm(_conf(backend_conf, iscsi_target_flags='direct',
                              iscsi_write_cache='off'))
    lines = helper.target_conf(_ref(), IQN, '/v/x', CREDENTIALS).splitlines()
    assert '    bsoflags direct' in lines and '    write-cache off' in lines


def test_create_export_writes_the_file_updates_tgtd_and_returns_cinders_columns(
        backend_conf, recorder, tmp_path):
    tgtadm = recorder(shows=[SHOW_WITH_LUN, SHOW_WITH_LUN])
    helper = tgt.TgtAdm(_conf(backend_conf))
    columns = helper.create_export(_ref(), '/v/volume-x')

    target_file = str(tmp_path / 'targets' / f'volume-{VOLUME_ID}')
    assert tgtadm.calls == [
        ('tgt-admin', '-C', '5', '--conf', target_file, '--update', IQN),
        ('tgt-admin', '-C', '5', '--show'), ('tgt-admin', '-C', '5', '--show')]
    assert columns['provider_location'] == f'10.0.0.5:3260,3 {IQN} 1'
    method, username, password = columns['provider_auth'].split(' ')
    assert method == 'CHAP' and len(username) == 20 and len(password) == 16
    with open(target_file) as written:
        assert f'    incominguser {username} {password}\n' in written.read()
    assert _target_files(tmp_path) == [f'volume-{VOLUME_ID}']


def test_create_export_keeps_the_volumes_credentials(backend_conf, recorder):
    recorder(shows=[SHOW_WITH_LUN, SHOW_WITH_LUN])
    helper = tgt.TgtAdm(_conf(backend_conf, target_port=3261, tgt_control_port=0))
    columns = helper.create_export(_ref(provider_auth=AUTH), '/v/x')
    assert columns == {'provider_location': f'10.0.0.5:3261,3 {IQN} 1', 'provider_auth': AUTH}


def test_no_control_port_option_means_tgts_default(backend_conf, recorder):
    tgtadm = recorder(shows=[SHOW_WITH_LUN, SHOW_WITH_LUN])
    tgt.TgtAdm(_conf(backend_conf, tgt_control_port=0)).create_export(_ref(), '/v/x')
    assert tgtadm.calls[0][:2] == ('tgt-admin', '--conf')


def test_ipv6_portal_is_bracketed(backend_conf, recorder):
    recorder(shows=[SHOW_WITH_LUN, SHOW_WITH_LUN])
    helper = tgt.TgtAdm(_conf(backend_conf, target_ip_address='fd00::5'))
    location = helper.create_export(_ref(), '/v/x')['provider_location']
    assert location == f'[fd00::5]:3260,3 {IQN} 1'


def test_failed_update_removes_the_file(backend_conf, recorder, tmp_path):
    error = processutils.ProcessExecutionError(stderr='tgtadm: target already exists')
    recorder(fail={'--update': error})
    helper = tgt.TgtAdm(_conf(backend_conf))
    with pytest.raises(exception.ISCSITargetCreateFailed) as raised:
        helper.create_export(_ref(), '/v/x')
    assert str(raised.value) == f'Failed to create iscsi target for volume {VOLUME_ID}.'
    assert _target_files(tmp_path) == []


@pytest.mark.parametrize('show', ['', SHOW_WITHOUT_LUN])
def test_target_or_lun_missing_after_update_fails(backend_conf, recorder, tmp_path, show):
    recorder(shows=[show, show])
    helper = tgt.TgtAdm(_conf(backend_conf))
    with pytest.raises(exception.ISCSITargetCreateFailed):
        helper.create_export(_ref(), '/v/x')
    assert _target_files(tmp_path) == []


def test_ensure_export_recreates_with_the_stored_credentials(backend_conf, recorder,
                                                             tmp_path):
    tgtadm = recorder(shows=[SHOW_WITH_LUN, SHOW_WITH_LUN])
    tgt.TgtAdm(_conf(backend_conf)).ensure_export(_ref(provider_auth=AUTH), '/v/x')
    assert tgtadm.calls[0][-2:] == ('--update', IQN)
    with open(tmp_path / 'targets' / f'volume-{VOLUME_ID}') as written:
        assert f'    incominguser {CREDENTIALS[0]} {CREDENTIALS[1]}\n' in written.read()


def test_ensure_export_of_a_volume_never_exported_does_nothing(backend_conf, recorder):
    tgtadm = recorder()
    tgt.TgtAdm(_conf(backend_conf)).ensure_export(_ref(), '/v/x')
    assert tgtadm.calls == []


def _exported(helper, tmp_path):
    os.makedirs(tmp_path / 'targets', exist_ok=True)
    path = tmp_path / 'targets' / f'volume-{VOLUME_ID}'
    path.write_text(helper.target_conf(_ref(), IQN, '/v/x', CREDENTIALS))
    return path


def test_remove_export_deletes_the_target_then_its_file(backend_conf, recorder, tmp_path):
    tgtadm = recorder(shows=[SHOW_WITH_LUN, ''])
    helper = tgt.TgtAdm(_conf(backend_conf))
    target_file = _exported(helper, tmp_path)
    helper.remove_export(_ref(provider_auth=AUTH))
    assert ('tgt-admin', '-C', '5', '--delete', IQN, '--force') in tgtadm.calls
    assert not target_file.exists()


def test_silent_forced_removal_is_retried_without_force(backend_conf, recorder, tmp_path):
    tgtadm = recorder(shows=[SHOW_WITH_LUN, SHOW_WITH_LUN])
    helper = tgt.TgtAdm(_conf(backend_conf))
    _exported(helper, tmp_path)
    helper.remove_export(_ref())
    deletes = [call for call in tgtadm.calls if '--delete' in call]
    assert deletes == [('tgt-admin', '-C', '5', '--delete', IQN, '--force'),
                       ('tgt-admin', '-C', '5', '--delete', IQN)]


def test_removing_a_target_tgtd_does_not_have_only_removes_the_file(backend_conf, recorder,
                                                                    tmp_path):
    tgtadm = recorder(shows=['Target 1: iqn.other\n'] * 2)
    helper = tgt.TgtAdm(_conf(backend_conf))
    target_file = _exported(helper, tmp_path)
    helper.remove_export(_ref())
    assert [call for call in tgtadm.calls if '--delete' in call] == []
    assert not target_file.exists()
    helper.remove_export(_ref())  # neither tgtd nor the file has it: already removed


def test_removal_tgtd_refuses_fails_and_keeps_the_file(backend_conf, recorder, tmp_path):
    error = processutils.ProcessExecutionError(stderr='tgtadm: this target is still active')
    recorder(shows=[SHOW_WITH_LUN], fail={'--delete': error})
    helper = tgt.TgtAdm(_conf(backend_conf))
    target_file = _exported(helper, tmp_path)
    with pytest.raises(exception.ISCSITargetRemoveFailed) as raised:
        helper.remove_export(_ref())
    assert str(raised.value) == f'Failed to remove iscsi target for volume {VOLUME_ID}.'
    assert target_file.exists()


def test_gone_target_answer_is_not_an_error(backend_conf, recorder, tmp_path):
    error = processutils.ProcessExecutionError(stderr="tgtadm: can't find the target")
    recorder(shows=[SHOW_WITH_LUN, ''], fail={'--delete': error})
    helper = tgt.TgtAdm(_conf(backend_conf))
    target_file = _exported(helper, tmp_path)
    helper.remove_export(_ref())
    assert not target_file.exists()


def test_refresh_rebuilds_an_exported_target_only(backend_conf, recorder, tmp_path):
    tgtadm = recorder()
    helper = tgt.TgtAdm(_conf(backend_conf))
    helper.refresh_target(_ref())
    assert tgtadm.calls == []
    target_file = _exported(helper, tmp_path)
    helper.refresh_target(_ref())
    assert tgtadm.calls == [('tgt-admin', '-C', '5', '--conf', str(target_file), '--update',
                             IQN, '--force')]


EXPORTED = _ref(provider_location=f'10.0.0.5:3260,3 {IQN} 1', provider_auth=AUTH)


def test_connection_info_is_cinders_iscsi_properties(backend_conf):
    helper = tgt.TgtAdm(_conf(backend_conf))
    info = helper.initialize_connection(EXPORTED, {'initiator': 'iqn.1993-08.org.debian:1'})
    assert info == {'driver_volume_type': 'iscsi', 'data': {
        'target_discovered': False, 'target_portal': '10.0.0.5:3260', 'target_iqn': IQN,
        'target_lun': 1, 'volume_id': VOLUME_ID, 'auth_method': 'CHAP',
        'auth_username': CREDENTIALS[0], 'auth_password': CREDENTIALS[1],
        'encrypted': False, 'qos_specs': None, 'access_mode': 'rw'}}


def test_multipath_connection_lists_the_portals(backend_conf):
    helper = tgt.TgtAdm(_conf(backend_conf))
    data = helper.initialize_connection(EXPORTED, {'multipath': True})['data']
    assert (data['target_portals'], data['target_iqns'], data['target_luns']) == (
        ['10.0.0.5:3260'], [IQN], [1])
    assert data['target_portal'] == '10.0.0.5:3260'


@pytest.mark.parametrize('multipath', [False, True])
def test_os_brick_iscsi_connector_finds_the_target(backend_conf, multipath):
    data = tgt.TgtAdm(_conf(backend_conf)).initialize_connection(
        EXPORTED, {'multipath': multipath})['data']
    connector = brick_iscsi.ISCSIConnector(root_helper=None)
    assert connector._get_all_targets(data) == [('10.0.0.5:3260', IQN, 1)]


@pytest.mark.parametrize('consumer, expected', [
    ('front-end', {'total_iops_sec': '500'}), ('both', {'total_iops_sec': '500'}),
    ('back-end', None)])
def test_connection_carries_front_end_qos_encryption_and_readonly(backend_conf, consumer,
                                                                  expected):
    qos = {'id': 'q', 'name': 'gold', 'consumer': consumer,
           'specs': {'total_iops_sec': '500'}}
    volume = dataclasses.replace(EXPORTED, qos_specs=qos, encryption_key_id='k',
                                 readonly=True)
    data = tgt.TgtAdm(_conf(backend_conf)).initialize_connection(volume, {})['data']
    assert data['qos_specs'] == expected
    assert data['encrypted'] is True and data['access_mode'] == 'ro'


@pytest.mark.parametrize('location', [None, '/state/volumes/volume-x'])
def test_connection_without_an_iscsi_export_is_refused(backend_conf, location):
    helper = tgt.TgtAdm(_conf(backend_conf))
    with pytest.raises(exception.InvalidVolume) as raised:
        helper.initialize_connection(_ref(provider_location=location), {})
    assert str(raised.value) == (
        f'Invalid volume: Could not find iSCSI export for volume volume-{VOLUME_ID}')


def test_frontend_qos_of_no_specs():
    assert iscsi.frontend_qos(None) is None


def test_file_driver_exports_through_the_helper(backend_conf, recorder, tmp_path):
    tgtadm = recorder(shows=[SHOW_WITH_LUN, SHOW_WITH_LUN])
    driver = file.FileDriver(_conf(backend_conf), host='h@b1')
    columns = driver.create_export(_ref(), {'initiator': 'iqn.x'})
    assert tgtadm.calls[0][-2:] == ('--update', IQN)
    with open(tmp_path / 'targets' / f'volume-{VOLUME_ID}') as written:
        assert f'    backing-store {driver.path(_ref())}\n' in written.read()
    exported = dataclasses.replace(_ref(), **columns)
    assert driver.initialize_connection(exported, {})['data']['target_iqn'] == IQN


def test_file_driver_without_a_target_keeps_the_local_connection(backend_conf, recorder):
    tgtadm = recorder()
    driver = file.FileDriver(backend_conf(file.DRIVER_OPTS), host='h@b1')
    assert driver.create_export(_ref(), {}) is None
    driver.ensure_export(_ref(provider_auth=AUTH))
    driver.remove_export(_ref())
    assert driver.initialize_connection(_ref(), {}) == {
        'driver_volume_type': 'local', 'data': {'device_path': driver.path(_ref())}}
    assert tgtadm.calls == []


def test_file_driver_refuses_target_files_among_its_images(backend_conf, tmp_path):
    driver = file.FileDriver(_conf(backend_conf, volumes_dir=str(tmp_path / 'volumes')),
                             host='h@b1')
    driver.do_setup(None)
    with pytest.raises(exception.VolumeDriverException) as raised:
        driver.check_for_setup_error()
    assert 'volumes_dir must differ from file_volume_directory' in str(raised.value)


def test_file_driver_setup_fails_when_tgtd_does_not_answer(backend_conf, recorder):
    recorder(fail={'--show': processutils.ProcessExecutionError(stderr='not connected')})
    driver = file.FileDriver(_conf(backend_conf), host='h@b1')
    driver.do_setup(None)
    with pytest.raises(exception.VolumeDriverException) as raised:
        driver.check_for_setup_error()
    assert 'tgtd does not answer tgt-admin' in str(raised.value)


def test_file_backend_reports_iscsi_and_multiattach_as_cinders_lvm_with_a_target(
        backend_conf):
    for options, protocol, multiattach in (({}, 'iSCSI', True),
                                           ({'target_helper': 'fake'}, 'local', False)):
        driver = file.FileDriver(_conf(backend_conf, **options), host='h@b1')
        driver.do_setup(None)
        stats = driver.get_volume_stats()
        assert stats['storage_protocol'] == protocol
        assert stats['pools'][0]['multiattach'] is multiattach
