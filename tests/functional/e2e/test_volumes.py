"""Volumes end to end: the four daemons as processes on RabbitMQ and PostgreSQL, then MariaDB.

Two `file` backends keep real data in two directories; a third backend (the fake driver with
failure injection and the most capacity, so the capacity weigher tries it first) fails every
create. Everything goes through the REST API with noauth, as a user or an operator would.
"""

import os

import pytest

from tests.functional.e2e.stack import PROJECT, deployed, wait_for

pytestmark = [pytest.mark.rabbit, pytest.mark.qemu_img]

STARTUP = 90  # seconds for four Python daemons to import, connect, register and report
SETTLE = 60  # seconds for a volume to reach a steady status
GiB = 1024 ** 3
BACKENDS = ('file1', 'file2', 'failing')
V = f'/v3/{PROJECT}'


def _configure(stack):
    for name in ('file1', 'file2'):
        stack.update_config(name, volume_driver='file',
                            file_volume_directory=stack.workdir / name)
    stack.update_config('failing', fake_total_capacity_gb=10_000_000,
                        fake_fail='create_volume,create_cloned_volume')


@pytest.fixture(scope='module', params=[
    pytest.param('postgresql', marks=pytest.mark.postgresql),
    pytest.param('mysql', marks=pytest.mark.mysql)])
def stack(request, tmp_path_factory, rabbit_url):
    with deployed(tmp_path_factory.mktemp(f'volumes-{request.param}'),
                  server_url=request.getfixturevalue(f'{request.param}_server_url'),
                  transport_url=rabbit_url, backends=BACKENDS, configure=_configure,
                  timeout=STARTUP) as stack:
        yield stack


def _create_type(stack, name, **extra_specs):
    return stack.ok('POST', f'{V}/types', {'volume_type': {
        'name': name, 'extra_specs': extra_specs}}, expect=200)['volume_type']


def _create_volume(stack, **fields):
    return stack.ok('POST', f'{V}/volumes', {'volume': fields}, expect=202)['volume']


def _volume(stack, volume_id):
    return stack.ok('GET', f'{V}/volumes/{volume_id}', expect=200)['volume']


def _settled(stack, volume_id, wanted):
    """The volume once its status leaves the transitional ones; fails unless it is *wanted*."""
    def steady():
        volume = _volume(stack, volume_id)
        return volume if volume['status'] not in ('creating', 'extending', 'deleting') else None
    volume = wait_for(steady, timeout=SETTLE, what=f'volume {volume_id} to settle')
    assert volume['status'] == wanted, volume
    return volume


def _backend(volume) -> str:
    """`file1` of `host@file1#file1`."""
    return volume['os-vol-host-attr:host'].partition('@')[2].partition('#')[0]


def _file(stack, volume):
    return stack.workdir / _backend(volume) / f'volume-{volume["id"]}'


def test_pools_and_capabilities_of_the_three_backends(stack):
    pools = stack.ok('GET', f'{V}/scheduler-stats/get_pools?detail=true',
                     expect=200)['pools']
    by_name = {pool['name']: pool['capabilities'] for pool in pools}
    file1 = by_name[f'{stack.host}@file1#file1']
    assert file1['storage_protocol'] == 'local'
    assert file1['total_capacity_gb'] > 0
    only_file2 = stack.ok('GET', f'{V}/scheduler-stats/get_pools?name={stack.host}@file2%23file2',
                          expect=200, version='3.35')['pools']
    assert only_file2 == [{'name': f'{stack.host}@file2#file2'}]

    capabilities = stack.ok('GET', f'{V}/capabilities/{stack.host}@file2', expect=200)
    assert capabilities['namespace'] == f'OS::Storage::Capabilities::{stack.host}@file2'
    assert (capabilities['volume_backend_name'], capabilities['storage_protocol']) == (
        'file2', 'local')
    assert 'thin_provisioning' in capabilities['properties']
    missing = stack.request('GET', f'{V}/capabilities/{stack.host}@nowhere')
    assert missing == (404, {'itemNotFound': {
        'code': 404, 'message': f"Can't find service: {stack.host}@nowhere"}})


def test_create_extend_clone_delete_with_real_files(stack):
    _create_type(stack, 'on-file1', volume_backend_name='file1')
    volume = _create_volume(stack, size=1, name='data', volume_type='on-file1')
    volume = _settled(stack, volume['id'], 'available')
    assert _backend(volume) == 'file1'
    path = _file(stack, volume)
    assert os.path.getsize(path) == 1 * GiB

    stack.ok('POST', f'{V}/volumes/{volume["id"]}/action',
             {'os-extend': {'new_size': 2}}, expect=202)
    volume = _settled(stack, volume['id'], 'available')
    assert volume['size'] == 2
    assert os.path.getsize(path) == 2 * GiB

    with open(path, 'r+b') as data:
        data.seek(GiB + 4096)
        data.write(b'written before the clone')
    clone = _create_volume(stack, size=2, source_volid=volume['id'], name='copy')
    clone = _settled(stack, clone['id'], 'available')
    assert clone['source_volid'] == volume['id']
    with open(_file(stack, clone), 'rb') as data:
        data.seek(GiB + 4096)
        assert data.read(24) == b'written before the clone'

    for gone in (clone, volume):
        stack.ok('DELETE', f'{V}/volumes/{gone["id"]}', expect=202)
    for gone in (clone, volume):
        wait_for(lambda v=gone: stack.request('GET', f'{V}/volumes/{v["id"]}')[0] == 404,
                 timeout=SETTLE, what=f'volume {gone["id"]} to be deleted')
        assert not _file(stack, gone).exists()


def test_extra_specs_pick_the_backend(stack):
    _create_type(stack, 'on-file2', volume_backend_name='file2')
    volume = _create_volume(stack, size=1, volume_type='on-file2')
    volume = _settled(stack, volume['id'], 'available')
    assert _backend(volume) == 'file2'
    assert os.path.getsize(_file(stack, volume)) == GiB


def test_extra_specs_that_match_no_backend_end_in_error_with_a_user_message(stack):
    _create_type(stack, 'nowhere', volume_backend_name='no-such-backend')
    volume = _create_volume(stack, size=1, volume_type='nowhere')
    volume = _settled(stack, volume['id'], 'error')
    assert volume['os-vol-host-attr:host'] is None
    # NOTE: the message is written just after the status; poll for it.
    messages = wait_for(lambda: stack.ok('GET', f'{V}/messages?resource_uuid={volume["id"]}',
                                         expect=200, version='3.5')['messages'],
                        timeout=SETTLE, what='the user message')
    assert [m['event_id'] for m in messages] == ['VOLUME_VOLUME_001_003']
    assert messages[0]['user_message'] == (
        'schedule allocate volume:Could not find any available weighted backend.')
    assert messages[0]['resource_type'] == 'VOLUME'


def test_a_driver_failure_is_rescheduled_to_another_backend(stack):
    # NOTE(weigher): `failing` reports far more capacity, so it is tried first; its driver
    # fails the create and the retry goes to file2, the only other candidate.
    _create_type(stack, 'failing-or-file2', volume_backend_name='<or> failing <or> file2')
    volume = _create_volume(stack, size=1, volume_type='failing-or-file2')
    volume = _settled(stack, volume['id'], 'available')
    assert _backend(volume) == 'file2'
    assert os.path.getsize(_file(stack, volume)) == GiB
    log = stack.daemons['volume'].log()
    assert f'injected failure of create_volume for volume-{volume["id"]}' in log


def _snapshot_settled(stack, snapshot_id, wanted):
    def steady():
        snapshot = stack.ok('GET', f'{V}/snapshots/{snapshot_id}', expect=200)['snapshot']
        return snapshot if snapshot['status'] not in ('creating', 'deleting') else None
    snapshot = wait_for(steady, timeout=SETTLE, what=f'snapshot {snapshot_id} to settle')
    assert snapshot['status'] == wanted, snapshot
    return snapshot


def _write_at(path, data: bytes):
    with open(path, 'r+b') as disk:
        disk.seek(GiB + 4096)
        disk.write(data)


def _read_at(path, size: int) -> bytes:
    with open(path, 'rb') as disk:
        disk.seek(GiB + 4096)
        return disk.read(size)


def test_snapshot_volume_from_snapshot_revert_and_cascade_keep_the_data(stack):
    """Write, snapshot, overwrite: the volume made from the snapshot and the reverted
    volume read the old bytes; a cascade delete removes the snapshot's file too."""
    _create_type(stack, 'snapshots-on-file1', volume_backend_name='file1')
    volume = _create_volume(stack, size=2, name='original', volume_type='snapshots-on-file1')
    volume = _settled(stack, volume['id'], 'available')
    path = _file(stack, volume)
    _write_at(path, b'the old pattern')
    snapshot = stack.ok('POST', f'{V}/snapshots', {'snapshot': {
        'volume_id': volume['id'], 'name': 'before'}}, expect=202)['snapshot']
    snapshot = _snapshot_settled(stack, snapshot['id'], 'available')
    assert (snapshot['size'], snapshot['volume_id']) == (2, volume['id'])
    snapshot_file = stack.workdir / 'file1' / f'snapshot-{snapshot["id"]}'
    assert snapshot_file.exists()
    _write_at(path, b'THE NEW PATTERN')

    smaller = stack.request('POST', f'{V}/volumes', {'volume': {
        'snapshot_id': snapshot['id'], 'size': 1}})
    assert smaller[0] == 400 and 'cannot be smaller than the snapshot size' in str(smaller[1])
    copy = _create_volume(stack, snapshot_id=snapshot['id'], size=3, name='from-snapshot')
    copy = _settled(stack, copy['id'], 'available')
    assert (copy['snapshot_id'], copy['size'], _backend(copy)) == (snapshot['id'], 3, 'file1')
    assert _read_at(_file(stack, copy), 15) == b'the old pattern'
    assert os.path.getsize(_file(stack, copy)) == 3 * GiB

    stack.ok('POST', f'{V}/volumes/{volume["id"]}/action',
             {'revert': {'snapshot_id': snapshot['id']}}, expect=202, version='3.40')
    wait_for(lambda: _volume(stack, volume['id'])['status'] == 'available', timeout=SETTLE,
             what='the revert to finish')
    assert _read_at(path, 15) == b'the old pattern'

    refused = stack.request('DELETE', f'{V}/volumes/{volume["id"]}')
    assert refused[0] == 400 and 'have snapshots' in refused[1]['badRequest']['message']
    stack.ok('DELETE', f'{V}/volumes/{volume["id"]}?cascade=true', expect=202)
    stack.ok('DELETE', f'{V}/volumes/{copy["id"]}', expect=202)
    for gone in (volume, copy):
        wait_for(lambda v=gone: stack.request('GET', f'{V}/volumes/{v["id"]}')[0] == 404,
                 timeout=SETTLE, what=f'volume {gone["id"]} to be deleted')
        assert not _file(stack, gone).exists()
    assert stack.request('GET', f'{V}/snapshots/{snapshot["id"]}')[0] == 404
    assert not snapshot_file.exists()
