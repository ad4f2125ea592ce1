"""Migration and retype end to end: the four daemons as processes on RabbitMQ and
PostgreSQL, then MariaDB, with two `file` backends (local connections).

Everything goes through the REST API; the bytes are reached only through the connection
info os-initialize_connection returns (cinderlike.connector), written before the move and
compared by sha256 after it; the pools' claims are read from get_pools; and the stack's
close checks that no claim drifted.
"""

import datetime
import hashlib

import pytest

from cinderlike import connector
from tests.functional.e2e.stack import PROJECT, deployed, wait_for

pytestmark = [pytest.mark.rabbit, pytest.mark.qemu_img]

STARTUP = 90
SETTLE = 120
V = f'/v3/{PROJECT}'
MiB = 1024 * 1024
BACKENDS = ('b1', 'b2')
CONNECTOR = {'initiator': 'iqn.1994-05.com.redhat:test', 'ip': '127.0.0.1',
             'host': 'testhost', 'multipath': False, 'platform': 'x86_64',
             'os_type': 'linux2', 'do_local_attach': False}
OFFSETS = (0, 300 * MiB, 1023 * MiB)


def _configure(workdir):
    def configure(stack):
        for backend in BACKENDS:
            stack.update_config(backend, volume_driver='file', target_helper='fake',
                                file_volume_directory=workdir / f'volumes-{backend}')
    return configure


@pytest.fixture(scope='module', params=[
    pytest.param('postgresql', marks=pytest.mark.postgresql),
    pytest.param('mysql', marks=pytest.mark.mysql)])
def server(request):
    return request.param, request.getfixturevalue(f'{request.param}_server_url')


@pytest.fixture(scope='module')
def stack(server, tmp_path_factory, rabbit_url):
    name, url = server
    workdir = tmp_path_factory.mktemp(f'migrate-{name}')
    with deployed(workdir, server_url=url, transport_url=rabbit_url, backends=BACKENDS,
                  configure=_configure(workdir), timeout=STARTUP) as made:
        for backend in BACKENDS:
            made.ok('POST', f'{V}/types', {'volume_type': {
                'name': f'on-{backend}', 'extra_specs': {'volume_backend_name': backend}}},
                expect=200)
        yield made


def _pool(stack, backend):
    return f'{stack.host}@{backend}#{backend}'


def _volume(stack, volume_id):
    return stack.ok('GET', f'{V}/volumes/{volume_id}', expect=200)['volume']


def _new_volume(stack, backend=None):
    """An available volume of type on-<backend> (the default type, on either, without)."""
    spec = {'size': 1, **({'volume_type': f'on-{backend}'} if backend else {})}
    made = stack.ok('POST', f'{V}/volumes', {'volume': spec}, expect=202)['volume']
    volume = wait_for(lambda: (v := _volume(stack, made['id']))['status'] != 'creating' and v,
                      timeout=SETTLE, what='the volume to be created')
    assert volume['status'] == 'available', volume
    if backend:
        assert volume['os-vol-host-attr:host'] == _pool(stack, backend)
    return volume


def _backend_of(volume) -> str:
    return volume['os-vol-host-attr:host'].partition('@')[2].partition('#')[0]


def _migrated(stack, volume_id):
    def done():
        volume = _volume(stack, volume_id)
        return volume if volume['os-vol-mig-status-attr:migstat'] in ('success', 'error') \
            and volume['status'] not in ('retyping', 'maintenance') else None
    return wait_for(done, timeout=SETTLE, what=f'volume {volume_id} to finish migrating')


class _Connected:
    def __init__(self, stack, volume_id, *, writable):
        self.stack, self.volume_id, self.writable = stack, volume_id, writable

    def __enter__(self):
        info = self.stack.ok('POST', f'{V}/volumes/{self.volume_id}/action',
                             {'os-initialize_connection': {'connector': CONNECTOR}},
                             expect=200)['connection_info']
        self._opened = connector.open_volume(info, writable=self.writable)
        return self._opened.__enter__()

    def __exit__(self, *exc):
        try:
            return self._opened.__exit__(*exc)
        finally:
            self.stack.ok('POST', f'{V}/volumes/{self.volume_id}/action',
                          {'os-terminate_connection': {'connector': CONNECTOR}}, expect=202)


def _write(stack, volume_id, seed: str) -> None:
    with _Connected(stack, volume_id, writable=True) as volume:
        for index, offset in enumerate(OFFSETS):
            volume.seek(offset)
            volume.write(hashlib.sha256(f'{seed}-{index}'.encode()).digest() * (MiB // 32))


def _sha256(stack, volume_id) -> str:
    digest = hashlib.sha256()
    with _Connected(stack, volume_id, writable=False) as volume:
        for piece in iter(lambda: volume.read(8 * MiB), b''):
            digest.update(piece)
    return digest.hexdigest()


def _claims(stack) -> dict[str, float]:
    pools = stack.ok('GET', f'{V}/scheduler-stats/get_pools?detail=true', expect=200)['pools']
    return {pool['name']: pool['capabilities']['allocated_capacity_gb'] for pool in pools}


def _wait_claims(stack, wanted):
    wait_for(lambda: _claims(stack) == wanted, timeout=SETTLE,
             what=f'claims {wanted} (have {_claims(stack)})')


def _cleanup(stack, volume_id):
    stack.ok('DELETE', f'{V}/volumes/{volume_id}', expect=202)
    wait_for(lambda: stack.request('GET', f'{V}/volumes/{volume_id}')[0] == 404,
             timeout=SETTLE, what='the volume to be deleted')


def test_migrate_keeps_the_bytes_and_moves_the_claim(stack):
    """A volume of the default type (a type naming a backend passes no other one: Cinder's
    migration keeps the type) goes to the other backend, and back."""
    volume = _new_volume(stack)
    _write(stack, volume['id'], 'migrate')
    before = _sha256(stack, volume['id'])
    there = _backend_of(volume)
    other = 'b2' if there == 'b1' else 'b1'
    for frm, to in ((there, other), (other, there)):
        claims = _claims(stack)
        stack.ok('POST', f'{V}/volumes/{volume["id"]}/action', {'os-migrate_volume': {
            'host': _pool(stack, to), 'force_host_copy': True, 'lock_volume': True}},
            expect=202)
        done = _migrated(stack, volume['id'])
        assert (done['os-vol-mig-status-attr:migstat'], done['status'],
                done['os-vol-host-attr:host']) == ('success', 'available', _pool(stack, to))
        assert _sha256(stack, volume['id']) == before
        _wait_claims(stack, {**claims, _pool(stack, frm): claims[_pool(stack, frm)] - 1,
                             _pool(stack, to): claims[_pool(stack, to)] + 1})
    _cleanup(stack, volume['id'])


def test_retype_on_demand_migrates_and_changes_the_type(stack):
    volume = _new_volume(stack, 'b1')
    _write(stack, volume['id'], 'retype')
    before = _sha256(stack, volume['id'])
    stack.ok('POST', f'{V}/volumes/{volume["id"]}/action', {'os-retype': {
        'new_type': 'on-b2', 'migration_policy': 'on-demand'}}, expect=202)
    done = _migrated(stack, volume['id'])
    assert (done['volume_type'], done['os-vol-host-attr:host'], done['status']) == (
        'on-b2', _pool(stack, 'b2'), 'available')
    assert _sha256(stack, volume['id']) == before
    quota = stack.ok('GET', f'{V}/os-quota-sets/{PROJECT}?usage=true', expect=200)['quota_set']
    assert quota['volumes_on-b2']['in_use'] >= 1 and quota['volumes_on-b2']['reserved'] == 0
    _cleanup(stack, volume['id'])


def test_retype_with_policy_never_stays_and_gives_the_reservations_back(stack):
    volume = _new_volume(stack, 'b1')
    stack.ok('POST', f'{V}/volumes/{volume["id"]}/action', {'os-retype': {
        'new_type': 'on-b2', 'migration_policy': 'never'}}, expect=202)
    done = wait_for(lambda: (v := _volume(stack, volume['id']))['status'] != 'retyping' and v,
                    timeout=SETTLE, what='the retype to be refused')
    assert (done['status'], done['volume_type']) == ('available', 'on-b1')
    quota = stack.ok('GET', f'{V}/os-quota-sets/{PROJECT}?usage=true', expect=200)['quota_set']
    assert quota['volumes_on-b2']['reserved'] == 0
    _cleanup(stack, volume['id'])


def test_bad_migrations_are_cinders_400_and_change_nothing(stack):
    volume = _new_volume(stack, 'b1')
    path = f'{V}/volumes/{volume["id"]}/action'
    for body, message in (
            ({'host': _pool(stack, 'b1')}, 'destination host/cluster must be different'),
            ({'host': _pool(stack, 'b2'), 'lock_volume': 'perhaps'}, 'lock_volume'),
            ({'host': 'nowhere@x'}, "No available service named 'nowhere@x'")):
        status, answer = stack.request('POST', path, {'os-migrate_volume': body})
        assert status == 400 and message in answer['badRequest']['message'], answer
    status, answer = stack.request('POST', path, {'os-migrate_volume': {
        'host': _pool(stack, 'b2'), 'cluster': 'c'}}, version='3.16')
    assert (status, answer['badRequest']['message']) == (
        400, 'Invalid input received: One and only one of cluster and host must be set.')
    after = _volume(stack, volume['id'])
    assert (after['status'], after['os-vol-mig-status-attr:migstat']) == ('available', None)
    _cleanup(stack, volume['id'])


def _restart_volume_daemon(stack):
    """Start the volume daemon again; return once every backend heartbeated after it."""
    restarted = datetime.datetime.now(datetime.UTC).replace(tzinfo=None)
    stack.start('volume')

    def beating():
        rows = stack.services()
        return all(
            (row := rows.get(('cinder-volume', f'{stack.host}@{b}'), {})).get('state') == 'up'
            and row.get('updated_at')
            and datetime.datetime.fromisoformat(row['updated_at']) > restarted
            for b in BACKENDS)
    wait_for(beating, timeout=STARTUP, what='the restarted volume services to heartbeat')


def test_kill_9_of_the_volume_daemon_mid_migration_settles_it(stack):
    """The whole GiB written, so the copy takes a while; the daemon is killed once the
    migration runs. Whatever it had done, the restart settles the migration (error with the
    destination deleted, or done), the bytes are where the volume says, the claims add up."""
    volume = _new_volume(stack)
    with _Connected(stack, volume['id'], writable=True) as opened:
        for index in range(1024 // 8):
            opened.write(hashlib.sha256(f'kill-{index}'.encode()).digest() * (8 * MiB // 32))
    before = _sha256(stack, volume['id'])
    source = _backend_of(volume)
    to = 'b2' if source == 'b1' else 'b1'
    claims = _claims(stack)
    stack.ok('POST', f'{V}/volumes/{volume["id"]}/action', {'os-migrate_volume': {
        'host': _pool(stack, to), 'force_host_copy': True}}, expect=202)
    wait_for(lambda: _volume(stack, volume['id'])['os-vol-mig-status-attr:migstat'] in (
        'migrating', 'success', 'error'), timeout=SETTLE, what='the migration to run')
    stack.daemons['volume'].kill_group()
    _restart_volume_daemon(stack)
    done = _migrated(stack, volume['id'])
    landed = _backend_of(done)
    assert (done['os-vol-mig-status-attr:migstat'], landed) in (('error', source),
                                                                ('success', to))
    assert _sha256(stack, volume['id']) == before
    moved = landed != source
    _wait_claims(stack, {**claims, _pool(stack, source): claims[_pool(stack, source)] - moved,
                         _pool(stack, to): claims[_pool(stack, to)] + moved})
    _cleanup(stack, volume['id'])
