"""Attachments end to end over iSCSI: the four daemons as processes on RabbitMQ and
PostgreSQL, then MariaDB; one `file` backend exported by a tgtd of the test's own.

Everything goes through the REST API. A host that knows only the connection info the API
returned (portal, IQN, LUN, CHAP user and password) writes and reads the volume with qemu's
libiscsi client; a detach removes the target; after tgtd and the volume daemon restart, the
attached host reaches its data again with the credentials it holds. An in-use volume
extended at 3.42 grows its LUN, and the volume daemon tells the test's stand-in for Nova
(tests/fixtures/fake_nova.py, the `[nova]` compute endpoint) with a `volume-extended` event.
An in-use volume is backed up through a temporary snapshot (backup_use_temp_snapshot) that
the backup daemon reads over iSCSI with CHAP, and restored into a new volume over iSCSI.
"""

import hashlib
import uuid

import pytest

from tests.fixtures import fake_nova
from tests.fixtures import tgt as tgt_fixtures
from tests.functional.e2e.stack import PROJECT, deployed, wait_for
from tests.functional.test_tgt_export import (
    AUTH_FAILED,
    PATTERN,
    GiB,
    _login_refused,
    _lun_size,
    _read,
    _url,
)
from tests.functional.test_tgt_export import _write as _write_url

pytestmark = [pytest.mark.rabbit, pytest.mark.qemu_img, pytest.mark.tgt]

STARTUP = 90  # seconds for four Python daemons to import, connect, register and report
SETTLE = 60  # seconds for a volume to reach a steady status
V = f'/v3/{PROJECT}'
MV = '3.54'  # attachments with a mode and os-complete
EXTEND_IN_USE = '3.42'
BACKEND = 'iscsi'
CONNECTOR = {'initiator': 'iqn.1994-05.com.redhat:test', 'ip': '127.0.0.1',
             'host': 'testhost', 'multipath': False, 'platform': 'x86_64',
             'os_type': 'linux2', 'do_local_attach': False}
EXPECTED = hashlib.sha256(PATTERN).hexdigest()
REVERSED = hashlib.sha256(PATTERN[::-1]).hexdigest()


@pytest.fixture(scope='module', params=[
    pytest.param('postgresql', marks=pytest.mark.postgresql),
    pytest.param('mysql', marks=pytest.mark.mysql)])
def stack(request, tmp_path_factory, rabbit_url):
    workdir = tmp_path_factory.mktemp(f'attach-iscsi-{request.param}')
    tgtd = tgt_fixtures.Tgtd(str(workdir / 'tgtd.log'))
    tgtd.start()

    def configure(stack):
        stack.update_config(BACKEND, volume_driver='file', target_helper='tgtadm',
                            target_ip_address='127.0.0.1', target_port=tgtd.portal_port,
                            tgt_control_port=tgtd.control_port,
                            volumes_dir=workdir / 'targets',
                            file_volume_directory=workdir / 'volumes',
                            backup_use_temp_snapshot=True)
        # debug: the backup daemon logs how it attached what it read
        stack.update_config(debug=True)
        # a Nova without Keystone: the compute endpoint is the test's receiver
        stack.update_config('nova', auth_type='none', endpoint=nova.compute_url)
    try:
        with fake_nova.running() as nova, deployed(
                workdir, server_url=request.getfixturevalue(f'{request.param}_server_url'),
                transport_url=rabbit_url, backends=(BACKEND,), configure=configure,
                timeout=STARTUP) as made:
            made.tgtd = tgtd
            made.nova = nova
            yield made
    finally:
        try:
            tgtd.stop()
        finally:
            tgtd.kill()


@pytest.fixture
def volume(stack):
    """An available 1 GiB volume of the iSCSI backend, deleted after the test."""
    made = stack.ok('POST', f'{V}/volumes', {'volume': {'size': 1}}, expect=202)['volume']
    yield _settled(stack, made['id'], 'available')
    _delete(stack, made['id'])


def _delete(stack, volume_id):
    stack.ok('DELETE', f'{V}/volumes/{volume_id}', expect=202)
    wait_for(lambda: stack.request('GET', f'{V}/volumes/{volume_id}')[0] == 404,
             timeout=SETTLE, what=f'volume {volume_id} to be deleted')


def _volume(stack, volume_id):
    return stack.ok('GET', f'{V}/volumes/{volume_id}', expect=200)['volume']


def _settled(stack, volume_id, wanted):
    def steady():
        volume = _volume(stack, volume_id)
        return volume if volume['status'] not in (
            'creating', 'deleting', 'attaching', 'detaching', 'extending', 'backing-up',
            'restoring-backup') else None
    volume = wait_for(steady, timeout=SETTLE, what=f'volume {volume_id} to settle')
    assert volume['status'] == wanted, volume
    return volume


def _attach(stack, volume_id, instance_uuid=None):
    """POST /attachments with the connector, then os-complete: (attachment id, its
    connection info)."""
    attachment = stack.ok('POST', f'{V}/attachments', {'attachment': {
        'volume_uuid': volume_id, 'instance_uuid': instance_uuid or str(uuid.uuid4()),
        'connector': CONNECTOR, 'mode': 'rw'}}, expect=200, version=MV)['attachment']
    stack.ok('POST', f'{V}/attachments/{attachment["id"]}/action', {'os-complete': None},
             expect=204, version=MV)
    return attachment['id'], attachment['connection_info']


def _detach(stack, attachment_id):
    stack.ok('DELETE', f'{V}/attachments/{attachment_id}', expect=200, version=MV)


def _write(stack, info, data: bytes):
    source = stack.workdir / f'pattern-{uuid.uuid4().hex[:8]}'
    source.write_bytes(data)
    _write_url(_url(info), source)


def _sha256(stack, info) -> str:
    return _read(_url(info), stack.workdir / f'read-{uuid.uuid4().hex[:8]}')


def _action(stack, volume_id, name, body, *, expect, version=None):
    return stack.ok('POST', f'{V}/volumes/{volume_id}/action', {name: body}, expect=expect,
                    version=version)


def test_attachment_serves_the_data_only_while_attached_and_in_use_refuses_delete(
        stack, volume):
    attachment_id, info = _attach(stack, volume['id'])
    assert info['driver_volume_type'] == 'iscsi' and info['auth_method'] == 'CHAP'
    assert info['target_portal'] == stack.tgtd.portal
    assert info['target_iqn'] == f'iqn.2010-10.org.openstack:volume-{volume["id"]}'
    assert _settled(stack, volume['id'], 'in-use')['attachments'][0][
        'attachment_id'] == attachment_id
    _write(stack, info, PATTERN)
    assert _sha256(stack, info) == EXPECTED
    assert _login_refused(_url(info, password='Wrong2PasswordXy'), AUTH_FAILED)

    refused = stack.request('DELETE', f'{V}/volumes/{volume["id"]}')
    assert refused == (400, {'badRequest': {'code': 400, 'message': (
        'Invalid volume: Volume status must be available or error or error_restoring or '
        'error_extending or error_managing and must not be migrating, attached, belong to '
        'a group, have snapshots, awaiting a transfer, or be disassociated from '
        'snapshots after volume transfer.')}})
    assert _volume(stack, volume['id'])['status'] == 'in-use'

    _detach(stack, attachment_id)
    assert _settled(stack, volume['id'], 'available')['attachments'] == []
    assert stack.tgtd.target_ids() == []
    assert _login_refused(_url(info))

    again_id, again = _attach(stack, volume['id'])
    assert _sha256(stack, again) == EXPECTED
    _detach(stack, again_id)
    _settled(stack, volume['id'], 'available')


def test_legacy_actions_attach_write_detach_and_read_back(stack, volume):
    def attach():
        _action(stack, volume['id'], 'os-reserve', None, expect=202)
        info = _action(stack, volume['id'], 'os-initialize_connection',
                       {'connector': CONNECTOR}, expect=200)['connection_info']
        _action(stack, volume['id'], 'os-attach', {
            'instance_uuid': str(uuid.uuid4()), 'mountpoint': '/dev/vdb', 'mode': 'rw'},
            expect=202)
        _settled(stack, volume['id'], 'in-use')
        assert info['driver_volume_type'] == 'iscsi'
        return info['data']

    def detach():
        _action(stack, volume['id'], 'os-begin_detaching', None, expect=202)
        _action(stack, volume['id'], 'os-terminate_connection', {'connector': CONNECTOR},
                expect=202)
        _action(stack, volume['id'], 'os-detach', {}, expect=202)
        _settled(stack, volume['id'], 'available')

    info = attach()
    _write(stack, info, PATTERN[::-1])
    assert _login_refused(_url(info, password='Wrong2PasswordXy'), AUTH_FAILED)
    detach()
    assert stack.tgtd.target_ids() == []
    assert _login_refused(_url(info))

    info = attach()
    assert _sha256(stack, info) == REVERSED
    detach()


def test_multiattach_two_attachments_write_and_read_the_same_lun(stack):
    stack.ok('POST', f'{V}/types', {'volume_type': {
        'name': 'shared', 'extra_specs': {'multiattach': '<is> True'}}}, expect=200)
    made = stack.ok('POST', f'{V}/volumes', {'volume': {'size': 1, 'volume_type': 'shared'}},
                    expect=202)['volume']
    volume = _settled(stack, made['id'], 'available')
    assert volume['multiattach'] is True
    first_id, first = _attach(stack, volume['id'])
    second_id, second = _attach(stack, volume['id'])
    assert (first['target_iqn'], first['target_lun']) == (
        second['target_iqn'], second['target_lun'])
    assert len(_volume(stack, volume['id'])['attachments']) == 2

    _write(stack, first, PATTERN)
    assert _sha256(stack, second) == EXPECTED
    _write(stack, second, PATTERN[::-1])
    assert _sha256(stack, first) == REVERSED

    # The first detach keeps the export the second attachment still uses.
    _detach(stack, first_id)
    assert _settled(stack, volume['id'], 'in-use')
    assert _sha256(stack, second) == REVERSED
    _detach(stack, second_id)
    _settled(stack, volume['id'], 'available')
    assert stack.tgtd.target_ids() == []
    _delete(stack, volume['id'])


def _restart_volume_daemon(stack):
    """SIGTERM the volume daemon, start it again; return once its backend's service has
    started (after init_host), is up, and the scheduler places on its pool again (it leaves
    out a service it last saw down until it reads the services again)."""
    assert stack.daemons['volume'].stop() == 0
    daemon = stack.start('volume')
    wait_for(lambda: any(binary == 'cinder-volume' for _, binary, _ in
                         daemon.started_services()), timeout=STARTUP,
             what='the restarted volume service to start')
    key = ('cinder-volume', f'{stack.host}@{BACKEND}')
    wait_for(lambda: stack.services().get(key, {}).get('state') == 'up', timeout=30,
             what='the restarted volume service to be up')
    pool = f'{stack.host}@{BACKEND}#{BACKEND}'
    wait_for(lambda: pool in stack.pool_names(), timeout=30,
             what='the scheduler to place on the restarted backend')
    return daemon


def test_tgtd_and_volume_daemon_restart_bring_the_export_back(stack, volume):
    attachment_id, info = _attach(stack, volume['id'])
    _write(stack, info, PATTERN)

    stack.tgtd.restart()
    assert stack.tgtd.target_ids() == [] and _login_refused(_url(info))
    daemon = _restart_volume_daemon(stack)
    assert 'Re-exported 1 attached volumes' in daemon.log()

    # the host's credentials, unchanged, open the re-exported target
    assert len(stack.tgtd.target_ids()) == 1
    assert _volume(stack, volume['id'])['status'] == 'in-use'
    assert _sha256(stack, info) == EXPECTED
    assert _login_refused(_url(info, password='Wrong2PasswordXy'), AUTH_FAILED)
    shown = stack.ok('GET', f'{V}/attachments/{attachment_id}', expect=200,
                     version=MV)['attachment']
    assert (shown['connection_info']['auth_username'],
            shown['connection_info']['auth_password']) == (
        info['auth_username'], info['auth_password'])

    _detach(stack, attachment_id)
    _settled(stack, volume['id'], 'available')
    assert stack.tgtd.target_ids() == []


def test_extend_in_use_grows_the_lun_and_tells_nova(stack, volume):
    instance_uuid = str(uuid.uuid4())
    attachment_id, info = _attach(stack, volume['id'], instance_uuid)
    _write(stack, info, PATTERN)
    assert _lun_size(_url(info)) == GiB

    _action(stack, volume['id'], 'os-extend', {'new_size': 2}, expect=202,
            version=EXTEND_IN_USE)
    extended = _settled(stack, volume['id'], 'in-use')
    assert extended['size'] == 2

    # the attached host, with the credentials it holds, reads the new capacity and its data
    assert _lun_size(_url(info)) == 2 * GiB
    assert _sha256(stack, info) == EXPECTED
    posted = wait_for(stack.nova.events_posted, timeout=SETTLE,
                      what='the volume-extended event to reach Nova')
    assert [event.body for event in posted] == [{'events': [{
        'name': 'volume-extended', 'server_uuid': instance_uuid, 'tag': volume['id']}]}]
    headers = {name.lower(): value for name, value in posted[0].headers.items()}
    assert headers['openstack-api-version'] == 'compute 2.51'
    assert headers['x-openstack-nova-api-version'] == '2.51'

    _detach(stack, attachment_id)
    _settled(stack, volume['id'], 'available')


def _backup_settled(stack, backup_id):
    def steady():
        backup = stack.ok('GET', f'{V}/backups/{backup_id}', expect=200)['backup']
        return backup if backup['status'] not in ('creating', 'restoring') else None
    return wait_for(steady, timeout=SETTLE, what=f'backup {backup_id} to settle')


def test_an_in_use_backup_reads_a_temporary_snapshot_exported_over_iscsi(stack, volume):
    attachment_id, info = _attach(stack, volume['id'])
    _write(stack, info, PATTERN)
    made = stack.ok('POST', f'{V}/backups', {'backup': {'volume_id': volume['id'],
                                                         'force': True}},
                    expect=202)['backup']
    assert _backup_settled(stack, made['id'])['status'] == 'available'
    _settled(stack, volume['id'], 'in-use')
    # The backup daemon read an iSCSI LUN (the snapshot's own target), not a local file,
    # and the snapshot, its target and its row are gone; the attachment's target stays.
    assert 'Attaching a iscsi volume for reading' in stack.daemons['backup'].log()
    assert stack.ok('GET', f'{V}/snapshots?all_tenants=1', expect=200)['snapshots'] == []
    assert len(stack.tgtd.target_ids()) == 1
    assert not list((stack.workdir / 'targets').glob('snapshot-*'))
    _detach(stack, attachment_id)
    _settled(stack, volume['id'], 'available')

    restored = stack.ok('POST', f'{V}/backups/{made["id"]}/restore', {'restore': {}},
                        expect=202)['restore']
    _settled(stack, restored['volume_id'], 'available')
    assert _backup_settled(stack, made['id'])['status'] == 'available'
    attachment_id, info = _attach(stack, restored['volume_id'])
    assert _sha256(stack, info) == EXPECTED
    _detach(stack, attachment_id)
    _settled(stack, restored['volume_id'], 'available')
    stack.ok('DELETE', f'{V}/backups/{made["id"]}', expect=202)
    wait_for(lambda: stack.request('GET', f'{V}/backups/{made["id"]}')[0] == 404,
             timeout=SETTLE, what='the backup to be deleted')
    _delete(stack, restored['volume_id'])
    assert stack.tgtd.target_ids() == []
