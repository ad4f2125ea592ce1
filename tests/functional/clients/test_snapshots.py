"""Snapshots through the real clients against the four daemons (fake driver): the
python-cinderclient library and `cinder` CLI and openstacksdk.

NOTE(noauth): the `openstack volume snapshot` commands go through openstacksdk, whose
version discovery asks /v3/ without a token, which noauth answers with an empty 204 (as
Cinder's does); they are tested through a real Keystone in tests/functional/keystone.

Lifecycle and metadata, volumes from a snapshot (same size, bigger; smaller refused), revert
to the latest snapshot, a volume with snapshots refused without cascade and deleted with it.
"""

import pathlib
import shutil
import subprocess
import sys

import pytest
from cinderclient import client as cinder_client
from cinderclient import exceptions
from cinderclient.contrib import noauth
from keystoneauth1 import session

from tests.functional.clients.helpers import SETTLE, settle
from tests.functional.clients.test_openstacksdk import _connect
from tests.functional.e2e.stack import PROJECT, wait_for

pytestmark = [pytest.mark.rabbit, pytest.mark.postgresql]

BIN = pathlib.Path(sys.executable).parent
CINDER = shutil.which('cinder', path=str(BIN))


@pytest.fixture(scope='module')
def cinder(stack):
    auth = noauth.CinderNoAuthPlugin('admin', PROJECT,
                                     endpoint=f'http://127.0.0.1:{stack.api_port}/v3')
    return cinder_client.Client('3.71', session=session.Session(auth=auth))


def _until(fetch, status, what):
    return settle(fetch, until=lambda r: r.status == status, what=what)


def _volume(cinder, name, size=1, **kwargs):
    volume = cinder.volumes.create(size, name=name, **kwargs)
    return _until(lambda: cinder.volumes.get(volume.id), 'available', f'volume {name}')


def _gone(fetch, what):
    def missing():
        try:
            fetch()
        except exceptions.NotFound:
            return True
        return False
    settle(missing, until=bool, what=what)


def test_cinderclient_snapshot_lifecycle_volumes_from_it_revert_and_cascade(cinder, name):
    volume = _volume(cinder, name, size=2)
    snapshot = cinder.volume_snapshots.create(volume.id, name=f'{name}-s',
                                              description='by cinderclient',
                                              metadata={'k': 'v'})
    assert snapshot.status == 'creating'
    snapshot = _until(lambda: cinder.volume_snapshots.get(snapshot.id), 'available',
                      'the snapshot')
    assert (snapshot.name, snapshot.size, snapshot.volume_id, snapshot.metadata) == (
        f'{name}-s', 2, volume.id, {'k': 'v'})
    assert getattr(snapshot, 'os-extended-snapshot-attributes:progress') == '100%'
    listed = cinder.volume_snapshots.list(search_opts={'name': f'{name}-s'})
    assert [s.id for s in listed] == [snapshot.id]

    cinder.volume_snapshots.update(snapshot, name=f'{name}-renamed')
    cinder.volume_snapshots.set_metadata(snapshot, {'k2': 'v2'})
    cinder.volume_snapshots.delete_metadata(snapshot, ['k'])
    snapshot = cinder.volume_snapshots.get(snapshot.id)
    assert (snapshot.name, snapshot.metadata) == (f'{name}-renamed', {'k2': 'v2'})

    same = _volume(cinder, f'{name}-same', size=2, snapshot_id=snapshot.id)
    bigger = _volume(cinder, f'{name}-big', size=3, snapshot_id=snapshot.id)
    assert (same.snapshot_id, same.size, bigger.size) == (snapshot.id, 2, 3)
    with pytest.raises(exceptions.BadRequest, match='cannot be smaller than the snapshot'):
        cinder.volumes.create(1, snapshot_id=snapshot.id)

    cinder.volumes.revert_to_snapshot(volume, snapshot)
    _until(lambda: cinder.volumes.get(volume.id), 'available', 'the revert')
    assert cinder.volume_snapshots.get(snapshot.id).status == 'available'

    with pytest.raises(exceptions.BadRequest, match='have snapshots'):
        cinder.volumes.delete(volume)
    cinder.volumes.delete(volume, cascade=True)
    _gone(lambda: cinder.volumes.get(volume.id), 'the cascade delete')
    with pytest.raises(exceptions.NotFound):
        cinder.volume_snapshots.get(snapshot.id)
    for made in (same, bigger):
        cinder.volumes.delete(made)
        _gone(lambda m=made: cinder.volumes.get(m.id), f'volume {made.id}')


def test_cinderclient_snapshot_errors(cinder, name):
    with pytest.raises(exceptions.NotFound):
        cinder.volume_snapshots.create('00000000-0000-0000-0000-000000000000')
    with pytest.raises(exceptions.NotFound):
        cinder.volumes.create(1, snapshot_id='00000000-0000-0000-0000-000000000000')
    with pytest.raises(exceptions.NotFound, match='Backup'):
        cinder.volumes.create(1, backup_id='00000000-0000-0000-0000-000000000000')


@pytest.fixture(scope='module')
def cinder_cli(stack):
    # python-cinderclient is in the test extra: missing means a broken install, not a skip.
    assert CINDER is not None, 'cinder CLI not found: pip install -e .[test]'

    def run(*args):
        done = subprocess.run(
            [CINDER, '--os-auth-type', 'noauth', '--os-user-id', 'admin',
             '--os-project-id', PROJECT,
             '--os-endpoint', f'http://127.0.0.1:{stack.api_port}/v3',
             '--os-volume-api-version', '3.71', *args],
            capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, f'{args}: {done.stderr}'
        return done.stdout
    return run


def _fields(table: str) -> dict:
    rows = {}
    for line in table.splitlines():
        cells = [cell.strip() for cell in line.strip('|').split('|')]
        if len(cells) == 2 and line.startswith('|'):
            rows[cells[0]] = cells[1]
    return rows


def test_cinder_cli_snapshot_create_show_metadata_delete(cinder, cinder_cli, name):
    volume = _volume(cinder, name)
    created = _fields(cinder_cli('snapshot-create', '--name', f'{name}-cli',
                                 '--metadata', 'a=1', volume.id))
    snapshot_id = created['id']
    _until(lambda: cinder.volume_snapshots.get(snapshot_id), 'available', 'the snapshot')
    shown = _fields(cinder_cli('snapshot-show', snapshot_id))
    assert (shown['name'], shown['status'], shown['volume_id']) == (
        f'{name}-cli', 'available', volume.id)
    assert snapshot_id in cinder_cli('snapshot-list', '--name', f'{name}-cli')
    cinder_cli('snapshot-metadata', snapshot_id, 'set', 'b=2')
    assert cinder.volume_snapshots.get(snapshot_id).metadata == {'a': '1', 'b': '2'}
    cinder_cli('snapshot-delete', snapshot_id)
    _gone(lambda: cinder.volume_snapshots.get(snapshot_id), 'the snapshot delete')
    cinder.volumes.delete(volume)


def test_openstacksdk_snapshots_and_revert(stack, cinder, name):
    bs = _connect(stack)
    volume = _volume(cinder, name)
    snapshot = bs.create_snapshot(volume_id=volume.id, name=f'{name}-sdk')
    snapshot = settle(lambda: bs.get_snapshot(snapshot.id),
                      until=lambda s: s.status == 'available', what='the sdk snapshot')
    assert snapshot.volume_id == volume.id
    bs.set_snapshot_metadata(snapshot, k='v')
    assert bs.get_snapshot_metadata(snapshot).metadata == {'k': 'v'}
    assert snapshot.id in [s.id for s in bs.snapshots(name=f'{name}-sdk')]
    made = bs.create_volume(size=1, snapshot_id=snapshot.id, name=f'{name}-from')
    settle(lambda: bs.get_volume(made.id), until=lambda v: v.status == 'available',
           what='the volume from the snapshot')
    bs.delete_volume(made)
    bs.delete_snapshot(snapshot)
    # NOTE(settle): settle() returns the fetched value, so it cannot wait for None.
    wait_for(lambda: bs.find_snapshot(snapshot.id) is None, timeout=SETTLE,
             what='the sdk snapshot delete')
    cinder.volumes.delete(volume)

