"""Generic volume groups end to end: the four daemons as processes on RabbitMQ and
PostgreSQL, then MariaDB; a `file` backend (local connections) and a `fake` one.

A group of two volume types lands on the one backend that serves both; volumes are created
into it, added and removed; a group snapshot of members holding written patterns becomes a
new group whose every member reads its own pattern back (sha256), though the sources were
overwritten meanwhile; the groups go with delete-volumes. Everything goes through the REST
API, and a volume's bytes only through its connection info, as a host reaches them.
"""

import hashlib
import uuid

import pytest

from tests.functional.e2e.stack import PROJECT, deployed, wait_for
from tests.functional.e2e.test_backups import MiB, _Connected

pytestmark = [pytest.mark.rabbit, pytest.mark.qemu_img]

STARTUP = 90
SETTLE = 120
V = f'/v3/{PROJECT}'
BACKENDS = ('file', 'other')
BUSY = ('creating', 'deleting', 'updating')


@pytest.fixture(scope='module', params=[
    pytest.param('postgresql', marks=pytest.mark.postgresql),
    pytest.param('mysql', marks=pytest.mark.mysql)])
def stack(request, tmp_path_factory, rabbit_url):
    url = request.getfixturevalue(f'{request.param}_server_url')
    workdir = tmp_path_factory.mktemp(f'groups-{request.param}')

    def configure(made):
        made.update_config('file', volume_driver='file', target_helper='fake',
                           file_volume_directory=workdir / 'volumes')

    with deployed(workdir, server_url=url, transport_url=rabbit_url, backends=BACKENDS,
                  configure=configure, timeout=STARTUP) as made:
        yield made


def _get(stack, path):
    status, body = stack.request('GET', f'{V}{path}', version='3.71')
    return body if status == 200 else None


def _settled(stack, kind, item_id, wanted='available', query=''):
    def steady():
        body = _get(stack, f'/{kind}s/{item_id}{query}')
        row = body[kind] if body else None
        return row if row is not None and row['status'] not in BUSY else None
    row = wait_for(steady, timeout=SETTLE, what=f'{kind} {item_id} to settle')
    assert row['status'] == wanted, row
    return row


def _gone(stack, kind, item_id):
    wait_for(lambda: stack.request('GET', f'{V}/{kind}s/{item_id}', version='3.71')[0] == 404,
             timeout=SETTLE, what=f'{kind} {item_id} to be deleted')


def _post(stack, path, body, expect=202):
    return stack.ok('POST', f'{V}{path}', body, expect=expect, version='3.71')


def _pattern(seed: str) -> bytes:
    return hashlib.sha256(seed.encode()).digest() * (MiB // 32)


def _write(stack, volume_id, seed):
    with _Connected(stack, volume_id, writable=True) as volume:
        volume.seek(3 * MiB)
        volume.write(_pattern(seed))


def _read_digest(stack, volume_id) -> str:
    with _Connected(stack, volume_id, writable=False) as volume:
        volume.seek(3 * MiB)
        return hashlib.sha256(volume.read(MiB)).hexdigest()


def _volume(stack, volume_type, group_id=None):
    wanted = {'size': 1, 'volume_type': volume_type}
    if group_id:
        wanted['group_id'] = group_id
    made = _post(stack, '/volumes', {'volume': wanted})['volume']
    return _settled(stack, 'volume', made['id'])


def _members(stack, group_id):
    return sorted(_get(stack, f'/groups/{group_id}?list_volume=true')['group']['volumes'])


def test_group_lifecycle_with_snapshot_and_copy(stack):
    tag = uuid.uuid4().hex[:6]
    gold = _post(stack, '/types', {'volume_type': {
        'name': f'gold-{tag}', 'extra_specs': {'volume_backend_name': 'file'}}}, 200)
    anywhere = _post(stack, '/types', {'volume_type': {'name': f'any-{tag}'}}, 200)
    gold, anywhere = gold['volume_type'], anywhere['volume_type']
    gtype = _post(stack, '/group_types', {'group_type': {'name': f'gt-{tag}', 'group_specs': {
        'consistent_group_snapshot_enabled': '<is> True'}}})['group_type']
    group = _post(stack, '/groups', {'group': {
        'name': f'g-{tag}', 'group_type': gtype['id'],
        'volume_types': [gold['name'], anywhere['name']]}})['group']
    _settled(stack, 'group', group['id'])
    with_host = stack.ok('GET', f'/v3/{PROJECT}/groups/{group["id"]}', expect=200,
                         version='3.71')['group']
    assert sorted(with_host['volume_types']) == sorted([gold['id'], anywhere['id']])

    # members of both types land on the group's backend, the one that serves both
    first = _volume(stack, gold['name'], group['id'])
    second = _volume(stack, anywhere['name'], group['id'])
    for member in (first, second):
        assert member['os-vol-host-attr:host'] == f'{stack.host}@file#file'
        assert member['group_id'] == group['id']

    # a volume added, then removed
    extra = _volume(stack, gold['name'])
    stack.ok('PUT', f'{V}/groups/{group["id"]}', {'group': {'add_volumes': extra['id']}},
             expect=202, version='3.71')
    _settled(stack, 'group', group['id'])
    assert _members(stack, group['id']) == sorted([first['id'], second['id'], extra['id']])
    stack.ok('PUT', f'{V}/groups/{group["id"]}', {'group': {'remove_volumes': extra['id']}},
             expect=202, version='3.71')
    _settled(stack, 'group', group['id'])
    assert _members(stack, group['id']) == sorted([first['id'], second['id']])

    # patterns, a group snapshot, the sources overwritten, then a group from the snapshot
    seeds = {first['id']: f'first-{tag}', second['id']: f'second-{tag}'}
    for volume_id, seed in seeds.items():
        _write(stack, volume_id, seed)
    gsnap = _post(stack, '/group_snapshots', {'group_snapshot': {
        'group_id': group['id'], 'name': f'gs-{tag}'}})['group_snapshot']
    _settled(stack, 'group_snapshot', gsnap['id'])
    for volume_id in seeds:
        _write(stack, volume_id, f'overwritten-{tag}')
    copy = _post(stack, '/groups/action', {'create-from-src': {
        'group_snapshot_id': gsnap['id'], 'name': f'copy-{tag}'}})['group']
    copy = _settled(stack, 'group', copy['id'], query='?list_volume=true')
    assert len(copy['volumes']) == 2
    _, snapshots = stack.request('GET', f'{V}/snapshots/detail', version='3.71')
    source_of = {s['id']: s['volume_id'] for s in snapshots['snapshots']
                 if s['group_snapshot_id'] == gsnap['id']}
    for volume_id in copy['volumes']:
        made = _settled(stack, 'volume', volume_id)
        origin = source_of[made['snapshot_id']]
        assert _read_digest(stack, volume_id) == hashlib.sha256(
            _pattern(seeds[origin])).hexdigest()

    # a member of a group cannot go alone; the groups go with their volumes
    status, body = stack.request('DELETE', f'{V}/volumes/{first["id"]}')
    assert status == 400, body
    status, body = stack.request('POST', f'{V}/groups/{group["id"]}/action',
                                 {'delete': {'delete-volumes': True}}, version='3.71')
    assert status == 400 and 'snapshots' in body['badRequest']['message']
    stack.ok('DELETE', f'{V}/group_snapshots/{gsnap["id"]}', expect=202, version='3.71')
    _gone(stack, 'group_snapshot', gsnap['id'])
    for doomed in (group, copy):
        _post(stack, f'/groups/{doomed["id"]}/action', {'delete': {'delete-volumes': True}})
        _gone(stack, 'group', doomed['id'])
    for volume_id in [*seeds, *copy['volumes']]:
        _gone(stack, 'volume', volume_id)
    stack.ok('DELETE', f'{V}/volumes/{extra["id"]}', expect=202)
    _gone(stack, 'volume', extra['id'])


def test_no_backend_serves_both_types_so_the_group_is_error(stack):
    tag = uuid.uuid4().hex[:6]
    on_file = _post(stack, '/types', {'volume_type': {
        'name': f'f-{tag}', 'extra_specs': {'volume_backend_name': 'file'}}}, 200)
    on_other = _post(stack, '/types', {'volume_type': {
        'name': f'o-{tag}', 'extra_specs': {'volume_backend_name': 'other'}}}, 200)
    gtype = _post(stack, '/group_types', {'group_type': {'name': f'gt-{tag}'}})['group_type']
    group = _post(stack, '/groups', {'group': {
        'group_type': gtype['id'], 'volume_types': [on_file['volume_type']['name'],
                                                    on_other['volume_type']['name']]}})['group']
    _settled(stack, 'group', group['id'], wanted='error')
    _post(stack, f'/groups/{group["id"]}/action', {'delete': {}})
    _gone(stack, 'group', group['id'])
