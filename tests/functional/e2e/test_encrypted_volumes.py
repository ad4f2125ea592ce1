"""Encrypted volume types end to end with the fixed-key manager ([key_manager] backend =
Cinder's ConfKeyManager): four daemons on RabbitMQ and PostgreSQL, then MariaDB, one `file`
backend; and os-hosts over what they hold; and an encrypted volume transferred to another
project (3.70) through python-cinderclient, its key id and its bytes kept.

The file driver stores what the attaching host writes (os-brick encrypts on that host for
`front-end`); the test checks the bytes and the key id travel through clone and snapshot.
"""

import hashlib
import os
import uuid

import pytest
from cinderclient import client as cinder_client
from cinderclient.contrib import noauth
from keystoneauth1 import session

from cinderlike.key_manager import FIXED_KEY_ID
from tests.functional.clients.test_cinderclient import cinder  # noqa: F401 - fixture
from tests.functional.e2e.stack import PROJECT, deployed, wait_for

pytestmark = [pytest.mark.rabbit, pytest.mark.qemu_img]

STARTUP = 90  # seconds for four Python daemons to import, connect, register and report
SETTLE = 60  # seconds for a volume or snapshot to reach a steady status
V = f'/v3/{PROJECT}'
LUKS = {'provider': 'luks', 'cipher': 'aes-xts-plain64', 'key_size': 256,
        'control_location': 'front-end'}


def _configure(stack):
    stack.update_config('file1', volume_driver='file',
                        file_volume_directory=stack.workdir / 'file1')
    stack.update_config('key_manager', backend='cinder.keymgr.conf_key_mgr.ConfKeyManager',
                        fixed_key='00112233445566778899aabbccddeeff' * 2)


@pytest.fixture(scope='module', params=[
    pytest.param('postgresql', marks=pytest.mark.postgresql),
    pytest.param('mysql', marks=pytest.mark.mysql)])
def stack(request, tmp_path_factory, rabbit_url):
    with deployed(tmp_path_factory.mktemp(f'encrypted-{request.param}'),
                  server_url=request.getfixturevalue(f'{request.param}_server_url'),
                  transport_url=rabbit_url, backends=('file1',), configure=_configure,
                  timeout=STARTUP) as stack:
        yield stack


def _settled(stack, kind, item_id, wanted='available'):
    def steady():
        item = stack.ok('GET', f'{V}/{kind}s/{item_id}', expect=200)[kind]
        return item if item['status'] not in ('creating', 'deleting') else None
    item = wait_for(steady, timeout=SETTLE, what=f'{kind} {item_id} to settle')
    assert item['status'] == wanted, item
    return item


def _create_volume(stack, **fields):
    created = stack.ok('POST', f'{V}/volumes', {'volume': fields}, expect=202)['volume']
    return _settled(stack, 'volume', created['id'])


def _file(stack, volume_id):
    return stack.workdir / 'file1' / f'volume-{volume_id}'


def _sha256(path, length) -> str:
    with open(path, 'rb') as data:
        return hashlib.sha256(data.read(length)).hexdigest()


def _delete(stack, volume_id):
    stack.ok('DELETE', f'{V}/volumes/{volume_id}', expect=202)
    wait_for(lambda: stack.request('GET', f'{V}/volumes/{volume_id}')[0] == 404,
             timeout=SETTLE, what=f'volume {volume_id} to be deleted')


def test_encrypted_volumes_keep_their_key_and_data(stack, cinder):  # noqa: F811
    vtype = stack.ok('POST', f'{V}/types', {'volume_type': {
        'name': 'encrypted', 'extra_specs': {'volume_backend_name': 'file1'}}},
        expect=200)['volume_type']
    stack.ok('POST', f"{V}/types/{vtype['id']}/encryption", {'encryption': LUKS}, expect=200)

    volume = _create_volume(stack, size=1, volume_type='encrypted')
    assert volume['encrypted'] is True
    shown = stack.ok('GET', f"{V}/volumes/{volume['id']}", expect=200, version='3.64')['volume']
    assert 'encryption_key_id' not in shown  # Cinder hides the fixed key's id
    assert stack.ok('GET', f"{V}/volumes/{volume['id']}/encryption", expect=200) == {
        'encryption_key_id': FIXED_KEY_ID, **LUKS}
    # what Nova asks before it attaches (python-cinderclient)
    assert dict(cinder.volumes.get_encryption_metadata(volume['id'])) == {
        'encryption_key_id': FIXED_KEY_ID, **LUKS}

    payload = os.urandom(1 << 20)
    with open(_file(stack, volume['id']), 'r+b') as data:
        data.write(payload)
    digest = hashlib.sha256(payload).hexdigest()
    clone = _create_volume(stack, source_volid=volume['id'])
    assert clone['encrypted'] is True and _sha256(_file(stack, clone['id']), len(payload)) == \
        digest
    snapshot = stack.ok('POST', f'{V}/snapshots', {'snapshot': {'volume_id': volume['id']}},
                        expect=202)['snapshot']
    _settled(stack, 'snapshot', snapshot['id'])
    restored = _create_volume(stack, snapshot_id=snapshot['id'])
    assert restored['encrypted'] is True
    assert _sha256(_file(stack, restored['id']), len(payload)) == digest
    assert stack.ok('GET', f"{V}/volumes/{restored['id']}/encryption/encryption_key_id",
                    expect=200) == FIXED_KEY_ID

    host = stack.ok('GET', f'{V}/os-hosts/{stack.host}@file1', expect=200)['host']
    assert host[0]['resource'] == {
        'host': f'{stack.host}@file1', 'project': '(total)', 'volume_count': '3',
        'total_volume_gb': '3', 'snapshot_count': '1', 'total_snapshot_gb': '1'}
    assert [row['resource']['project'] for row in host[1:]] == [PROJECT]
    listed = stack.ok('GET', f'{V}/os-hosts', expect=200)['hosts']
    assert {(h['host_name'], h['service'], h['service-status']) for h in listed} >= {
        (f'{stack.host}@file1', 'cinder-volume', 'available'),
        (stack.host, 'cinder-scheduler', 'available')}

    refused = stack.request('DELETE', f"{V}/types/{vtype['id']}/encryption/x")
    assert refused == (400, {'badRequest': {
        'code': 400, 'message': 'Cannot delete encryption specs. Volume type in use.'}})
    stack.ok('DELETE', f"{V}/snapshots/{snapshot['id']}", expect=202)
    wait_for(lambda: stack.request('GET', f"{V}/snapshots/{snapshot['id']}")[0] == 404,
             timeout=SETTLE, what='the snapshot to be deleted')
    for gone in (restored, clone, volume):
        _delete(stack, gone['id'])
    stack.ok('DELETE', f"{V}/types/{vtype['id']}/encryption/x", expect=202)
    assert stack.ok('GET', f"{V}/types/{vtype['id']}/encryption", expect=200) == {}


def test_an_encrypted_volume_transfers_with_its_key_from_3_70(stack, cinder):  # noqa: F811
    vtype = stack.ok('POST', f'{V}/types', {'volume_type': {
        'name': 'encrypted-transfer', 'extra_specs': {'volume_backend_name': 'file1'}}},
        expect=200)['volume_type']
    stack.ok('POST', f"{V}/types/{vtype['id']}/encryption", {'encryption': LUKS}, expect=200)
    volume = _create_volume(stack, size=1, volume_type='encrypted-transfer')
    payload = os.urandom(1 << 20)
    with open(_file(stack, volume['id']), 'r+b') as data:
        data.write(payload)
    refused = stack.request('POST', f'{V}/volume-transfers',
                            {'transfer': {'volume_id': volume['id']}}, version='3.69')
    assert refused == (400, {'badRequest': {'code': 400, 'message': (
        'Invalid volume: transferring encrypted volume is not supported')}})

    transfer = cinder.transfers.create(volume['id'], name='encrypted')
    taker_project = f'taker-{uuid.uuid4().hex[:8]}'
    taker = cinder_client.Client('3.71', session=session.Session(auth=noauth.CinderNoAuthPlugin(
        'taker', taker_project, endpoint=f'http://127.0.0.1:{stack.api_port}/v3')))
    taker.transfers.accept(transfer.id, transfer.auth_key)
    moved = taker.volumes.get(volume['id'])
    assert (moved.status, getattr(moved, 'os-vol-tenant-attr:tenant_id')) == (
        'available', taker_project)
    assert dict(taker.volumes.get_encryption_metadata(volume['id'])) == {
        'encryption_key_id': FIXED_KEY_ID, **LUKS}
    assert _sha256(_file(stack, volume['id']), len(payload)) == \
        hashlib.sha256(payload).hexdigest()
    taker.volumes.delete(volume['id'])
    wait_for(lambda: stack.request('GET', f"{V}/volumes/{volume['id']}")[0] == 404,
             timeout=SETTLE, what='the transferred volume to be deleted')
