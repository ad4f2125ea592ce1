"""cmd/all.py: the embedded defaults of cinderlike-all and how it exports its file backend."""

import shutil

from cinderlike.cmd import all as all_cmd


def test_embedded_defaults_and_auto_configured_file_backend(tmp_path):
    conf = all_cmd._parse(['--state_path', str(tmp_path)])
    assert conf.state_path == str(tmp_path)
    assert conf.transport_url == 'fake://'
    assert conf.auth_strategy == 'noauth'
    assert conf.osapi_volume_listen == '127.0.0.1'
    assert conf.enabled_backends == ['file']
    assert conf.file.volume_driver == 'file'
    assert conf.file.file_volume_directory == f'{tmp_path}/volumes'
    assert conf.file.target_helper == 'fake'
    assert conf.database.connection == f'sqlite:///{tmp_path}/cinderlike.sqlite'
    names = [type(s).__name__ for s in all_cmd._services(conf, db=None)]
    assert names == ['Service', 'Service', 'Service', 'APIService']


def test_without_qemu_img_the_embedded_backend_is_the_fake_driver(tmp_path, monkeypatch):
    monkeypatch.setattr(shutil, 'which', lambda name: None)
    conf = all_cmd._parse(['--state_path', str(tmp_path)])
    assert conf.file.volume_driver == 'fake'
    assert all_cmd._choose_export(conf) == (None, (
        'backend file: the in-memory fake driver, volumes hold no data (qemu-img is not '
        'installed; Debian: apt-get install qemu-utils)'))


def test_without_tgtd_the_local_connection(tmp_path, monkeypatch):
    monkeypatch.setattr(shutil, 'which', lambda name: '/usr/bin/qemu-img' if name == 'qemu-img'
                        else None)
    conf = all_cmd._parse(['--state_path', str(tmp_path)])
    assert all_cmd._choose_export(conf) == (None, (
        f'backend file: volumes in {tmp_path}/volumes, attached through the local connection '
        '(target_helper = fake): no tgtd, tgtd or tgt-admin is not installed (Debian: '
        'apt-get install tgt)'))
    assert conf.file.target_helper == 'fake'


def _with_config(tmp_path, text):
    config = tmp_path / 'operator.conf'
    config.write_text(text)
    return all_cmd._parse(['--state_path', str(tmp_path), '--config-file', str(config)])


def test_an_operator_target_helper_or_backends_start_no_tgtd(tmp_path, monkeypatch):
    monkeypatch.setattr(all_cmd, '_start_tgtd', lambda conf: (_ for _ in ()).throw(
        AssertionError('no tgtd may be started')))
    conf = _with_config(tmp_path, '[file]\ntarget_helper = fake\n')
    assert all_cmd._choose_export(conf) == (None, 'backends file as configured')
    conf = _with_config(tmp_path, '[DEFAULT]\nenabled_backends = b1\n[b1]\n'
                                  'volume_driver = fake\n')
    assert all_cmd._choose_export(conf) == (None, 'backends b1 as configured')


def test_a_started_tgtd_becomes_the_backends_target(tmp_path, monkeypatch):
    class Started:
        portal_port, control_port, portal = 3260, 4242, '127.0.0.1:3260'

    monkeypatch.setattr(all_cmd, '_start_tgtd', lambda conf: (Started(), None))
    conf = all_cmd._parse(['--state_path', str(tmp_path)])
    daemon, chosen = all_cmd._choose_export(conf)
    assert isinstance(daemon, Started)
    assert chosen == (f'backend file: volumes in {tmp_path}/volumes, exported over iSCSI by '
                      'a private tgtd on 127.0.0.1:3260 (target_helper = tgtadm, CHAP)')
    backend = conf.file
    assert (backend.target_helper, backend.target_ip_address, backend.target_port,
            backend.tgt_control_port) == ('tgtadm', '127.0.0.1', 3260, 4242)
    # an operator's value still wins over the embedded default
    config = tmp_path / 'operator.conf'
    config.write_text('[file]\ntarget_ip_address = 192.0.2.7\n')
    conf = all_cmd._parse(['--state_path', str(tmp_path), '--config-file', str(config)])
    all_cmd._choose_export(conf)
    assert (conf.file.target_helper, conf.file.target_ip_address) == ('tgtadm', '192.0.2.7')
