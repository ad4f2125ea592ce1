"""cmd/all.py: the embedded defaults of cinderlike-all."""

from cinderlike.cmd import all as all_cmd


def test_embedded_defaults_and_auto_configured_fake_backend(tmp_path):
    conf = all_cmd._parse(['--state_path', str(tmp_path)])
    assert conf.state_path == str(tmp_path)
    assert conf.transport_url == 'fake://'
    assert conf.auth_strategy == 'noauth'
    assert conf.osapi_volume_listen == '127.0.0.1'
    assert conf.enabled_backends == ['fake']
    assert conf.fake.volume_driver == 'fake'
    assert conf.database.connection == f'sqlite:///{tmp_path}/cinderlike.sqlite'
    names = [type(s).__name__ for s in all_cmd._services(conf, db=None)]
    assert names == ['Service', 'Service', 'Service', 'APIService']
