"""connector.properties: os-brick's connector dict, and the initiator name it carries (the
system's, or one made once and kept under state_path)."""

import concurrent.futures
import platform
import sys

from cinderlike import connector
from cinderlike.connector import host


def test_properties_are_os_bricks_keys_for_this_host(conf, tmp_path):
    conf.set_override('state_path', str(tmp_path))
    conf.set_override('my_ip', '192.0.2.10')
    props = connector.properties(conf, 'backup-1', system_file=str(tmp_path / 'none'))
    assert props == {
        'platform': platform.machine(), 'os_type': sys.platform, 'ip': '192.0.2.10',
        'host': 'backup-1', 'multipath': False, 'enforce_multipath': False,
        'initiator': props['initiator'], 'do_local_attach': False}
    assert props['initiator'].startswith('iqn.2010-10.org.openstack:initiator-')


def test_the_system_initiator_name_wins(conf, tmp_path):
    system = tmp_path / 'initiatorname.iscsi'
    system.write_text('## DO NOT EDIT\nInitiatorName=iqn.1993-08.org.debian:01:abc\n')
    conf.set_override('state_path', str(tmp_path / 'state'))
    props = connector.properties(conf, 'h', system_file=str(system))
    assert props['initiator'] == 'iqn.1993-08.org.debian:01:abc'
    assert not (tmp_path / 'state').exists()


def test_a_generated_name_is_kept_and_reused(tmp_path):
    missing = str(tmp_path / 'no-system-file')
    first = host.initiator(str(tmp_path), system_file=missing)
    assert (tmp_path / 'initiatorname.iscsi').read_text() == f'InitiatorName={first}\n'
    assert host.initiator(str(tmp_path), system_file=missing) == first
    assert [p.name for p in tmp_path.iterdir()] == ['initiatorname.iscsi']


def test_services_starting_together_agree_on_one_name(tmp_path):
    missing = str(tmp_path / 'no-system-file')
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        names = set(pool.map(lambda _: host.initiator(str(tmp_path / 's'), system_file=missing),
                             range(16)))
    assert len(names) == 1
    assert [p.name for p in (tmp_path / 's').iterdir()] == ['initiatorname.iscsi']
