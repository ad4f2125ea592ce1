"""Manage and unmanage end to end: the four daemons as processes on RabbitMQ and PostgreSQL,
then MariaDB, with one `file` backend holding real data.

A file written outside cinderlike is listed as manageable, managed (renamed into the
volume's name, its size rounded up to GiB), read back through the volume's connection and
its attachment, counted in quota and in the pool's claim; unmanage leaves the file and its
bytes on disk and gives both back. Bad requests change nothing.
"""

import hashlib
import os

import pytest

from tests.functional.e2e.stack import PROJECT, deployed, wait_for

pytestmark = [pytest.mark.rabbit, pytest.mark.qemu_img]

STARTUP = 90
SETTLE = 60
GiB = 1024 ** 3
V = f'/v3/{PROJECT}'
DATA = os.urandom(256 * 1024)
CONNECTOR = {'host': 'e2e-host', 'initiator': 'iqn.1993-08.org.debian:01:e2e',
             'ip': '192.0.2.20', 'platform': 'x86_64', 'os_type': 'linux', 'multipath': False}


def _configure(stack):
    stack.update_config('file1', volume_driver='file',
                        file_volume_directory=stack.workdir / 'file1')


@pytest.fixture(scope='module', params=[
    pytest.param('postgresql', marks=pytest.mark.postgresql),
    pytest.param('mysql', marks=pytest.mark.mysql)])
def stack(request, tmp_path_factory, rabbit_url):
    with deployed(tmp_path_factory.mktemp(f'manage-{request.param}'),
                  server_url=request.getfixturevalue(f'{request.param}_server_url'),
                  transport_url=rabbit_url, backends=('file1',), configure=_configure,
                  timeout=STARTUP) as stack:
        yield stack


def _backend(stack) -> str:
    return f'{stack.host}@file1'


def _status(stack, path, key):
    status, body = stack.get(path)
    return body[key]['status'] if status == 200 else status


def _usage(stack) -> dict:
    quota = stack.ok('GET', f'{V}/os-quota-sets/{PROJECT}?usage=True', expect=200)['quota_set']
    return {k: quota[k]['in_use'] for k in ('volumes', 'gigabytes', 'snapshots')}


def _claimed(stack) -> float:
    pools = stack.ok('GET', f'{V}/scheduler-stats/get_pools?detail=true', expect=200)['pools']
    (pool,) = pools
    return pool['capabilities']['allocated_capacity_gb']


def _write(path, size):
    with open(path, 'wb') as image:
        image.truncate(size)
        image.write(DATA)
    return hashlib.sha256(DATA).hexdigest()


def _read(path) -> str:
    with open(path, 'rb') as image:
        return hashlib.sha256(image.read(len(DATA))).hexdigest()


def test_a_file_is_managed_attached_read_and_left_on_unmanage(stack):
    directory = stack.workdir / 'file1'
    digest = _write(directory / 'outside.img', GiB + 1)
    before_usage, before_claim = _usage(stack), _claimed(stack)
    listed = stack.ok('GET', f'{V}/manageable_volumes/detail?host={_backend(stack)}',
                      expect=200, version='3.8')['manageable-volumes']
    assert {'reference': {'source-name': 'outside.img'}, 'size': 2, 'safe_to_manage': True,
            'reason_not_safe': None, 'cinder_id': None, 'extra_info': None} in listed

    volume = stack.ok('POST', f'{V}/manageable_volumes', {'volume': {
        'host': _backend(stack), 'ref': {'source-name': 'outside.img'}, 'name': 'adopted'}},
        expect=202, version='3.8')['volume']
    wait_for(lambda: _status(stack, f'{V}/volumes/{volume["id"]}', 'volume') == 'available',
             timeout=SETTLE, what='the manage')
    shown = stack.ok('GET', f'{V}/volumes/{volume["id"]}', expect=200)['volume']
    assert (shown['size'], shown['name']) == (2, 'adopted')
    path = directory / f'volume-{volume["id"]}'
    assert not (directory / 'outside.img').exists() and path.stat().st_size == 2 * GiB
    assert _usage(stack) == dict(before_usage, volumes=before_usage['volumes'] + 1,
                                 gigabytes=before_usage['gigabytes'] + 2)
    assert _claimed(stack) == before_claim + 2
    entry = {e['reference']['source-name']: e for e in stack.ok(
        'GET', f'{V}/manageable_volumes/detail?host={_backend(stack)}', expect=200,
        version='3.8')['manageable-volumes']}[path.name]
    assert (entry['reason_not_safe'], entry['cinder_id']) == ('already managed', volume['id'])

    attachment = stack.ok('POST', f'{V}/attachments', {'attachment': {
        'volume_uuid': volume['id'], 'connector': CONNECTOR}}, expect=200,
        version='3.54')['attachment']
    device = attachment['connection_info']['device_path']
    assert _read(device) == digest
    assert stack.request('POST', f'{V}/volumes/{volume["id"]}/action',
                         {'os-unmanage': {}})[0] == 400  # attached
    stack.ok('DELETE', f'{V}/attachments/{attachment["id"]}', expect=200, version='3.54')
    wait_for(lambda: _status(stack, f'{V}/volumes/{volume["id"]}', 'volume') == 'available',
             timeout=SETTLE, what='the detach')

    stack.ok('POST', f'{V}/volumes/{volume["id"]}/action', {'os-unmanage': {}}, expect=202)
    wait_for(lambda: stack.get(f'{V}/volumes/{volume["id"]}')[0] == 404, timeout=SETTLE,
             what='the unmanage')
    assert _read(path) == digest
    assert _usage(stack) == before_usage and _claimed(stack) == before_claim


def test_a_snapshot_file_is_managed_and_unmanaged(stack):
    directory = stack.workdir / 'file1'
    _write(directory / 'base.img', GiB)
    volume = stack.ok('POST', f'{V}/manageable_volumes', {'volume': {
        'host': _backend(stack), 'ref': {'source-name': 'base.img'}}},
        expect=202, version='3.8')['volume']
    wait_for(lambda: _status(stack, f'{V}/volumes/{volume["id"]}', 'volume') == 'available',
             timeout=SETTLE, what='the manage')
    digest = _write(directory / 'snapshot-outside', GiB)
    listed = stack.ok('GET', f'{V}/manageable_snapshots?host={_backend(stack)}',
                      expect=200, version='3.8')['manageable-snapshots']
    assert {'reference': {'source-name': 'snapshot-outside'}, 'size': 1,
            'safe_to_manage': True, 'source_reference': None} in listed
    snapshot = stack.ok('POST', f'{V}/manageable_snapshots', {'snapshot': {
        'volume_id': volume['id'], 'ref': {'source-name': 'snapshot-outside'}}},
        expect=202, version='3.8')['snapshot']
    wait_for(lambda: _status(stack, f'{V}/snapshots/{snapshot["id"]}', 'snapshot')
             == 'available', timeout=SETTLE, what='the snapshot manage')
    path = directory / f'snapshot-{snapshot["id"]}'
    assert _read(path) == digest
    stack.ok('POST', f'{V}/snapshots/{snapshot["id"]}/action', {'os-unmanage': {}},
             expect=202)
    wait_for(lambda: stack.get(f'{V}/snapshots/{snapshot["id"]}')[0] == 404, timeout=SETTLE,
             what='the snapshot unmanage')
    assert _read(path) == digest
    stack.ok('DELETE', f'{V}/volumes/{volume["id"]}', expect=202)
    wait_for(lambda: stack.get(f'{V}/volumes/{volume["id"]}')[0] == 404, timeout=SETTLE,
             what='the delete')
    assert not (directory / f'volume-{volume["id"]}').exists()


def test_bad_references_end_error_managing_and_refusals_write_nothing(stack):
    before_usage, before_claim = _usage(stack), _claimed(stack)
    volume = stack.ok('POST', f'{V}/manageable_volumes', {'volume': {
        'host': _backend(stack), 'ref': {'source-name': '../../etc/passwd'}}},
        expect=202, version='3.8')['volume']
    wait_for(lambda: _status(stack, f'{V}/volumes/{volume["id"]}', 'volume')
             == 'error_managing', timeout=SETTLE, what='the failed manage')
    assert _usage(stack) == before_usage and _claimed(stack) == before_claim
    stack.ok('DELETE', f'{V}/volumes/{volume["id"]}', expect=202)
    wait_for(lambda: stack.get(f'{V}/volumes/{volume["id"]}')[0] == 404, timeout=SETTLE,
             what='the delete of the error_managing volume')
    assert _usage(stack) == before_usage

    count = len(stack.ok('GET', f'{V}/volumes', expect=200)['volumes'])
    status, body = stack.request('POST', f'{V}/manageable_volumes', {'volume': {
        'host': 'nowhere@file1', 'ref': 'x'}}, version='3.8')
    assert (status, body) == (400, {'badRequest': {
        'code': 400, 'message': "Host 'nowhere@file1' not found"}})
    status, body = stack.request('GET', f'{V}/manageable_volumes?host={_backend(stack)}'
                                 '&sort=name', version='3.8')
    assert (status, body) == (400, {'badRequest': {
        'code': 400, 'message': 'Invalid sort keys passed: name'}})
    assert len(stack.ok('GET', f'{V}/volumes', expect=200)['volumes']) == count
    assert _usage(stack) == before_usage
