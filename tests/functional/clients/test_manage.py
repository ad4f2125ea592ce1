"""Manage and unmanage through the real clients against the four daemons (fake driver, whose
unmanaged volumes and snapshots stay in its memory and can be managed again): the
python-cinderclient library, the `cinder` CLI and openstacksdk.

NOTE(noauth): `openstack volume create --remote-source` / `volume delete --remote` and the
`block storage volume manageable list` commands go through openstacksdk's discovery, which
noauth cannot answer; tests/functional/keystone/test_openstack_cli.py runs them.
"""

import pytest
from cinderclient import exceptions

from tests.functional.clients import test_snapshots
from tests.functional.clients.test_openstacksdk import _connect
from tests.functional.clients.test_snapshots import _fields, _gone, _until, _volume

pytestmark = [pytest.mark.rabbit, pytest.mark.postgresql]
cinder, cinder_cli = test_snapshots.cinder, test_snapshots.cinder_cli


def _backend(volume) -> str:
    """host@backend of a volume (the admin sees os-vol-host-attr:host)."""
    return getattr(volume, 'os-vol-host-attr:host').partition('#')[0]


def _entries(listed) -> dict:
    return {entry.reference['source-name']: entry for entry in listed}


def test_cinderclient_unmanage_list_and_manage_again(cinder, name):
    volume = _volume(cinder, name, size=2)
    backend = _backend(cinder.volumes.get(volume.id))
    managed = _entries(cinder.volumes.list_manageable(backend))
    assert managed[f'volume-{volume.id}'].safe_to_manage is False
    assert managed[f'volume-{volume.id}'].reason_not_safe == 'already managed'
    with pytest.raises(exceptions.BadRequest, match='already managed'):
        cinder.volumes.manage(backend, {'source-name': f'volume-{volume.id}'})

    cinder.volumes.unmanage(volume)
    _gone(lambda: cinder.volumes.get(volume.id), 'the unmanage')
    entry = _entries(cinder.volumes.list_manageable(backend))[f'volume-{volume.id}']
    assert (entry.safe_to_manage, entry.size, entry.cinder_id) == (True, 2, None)

    adopted = cinder.volumes.manage(backend, {'source-name': f'volume-{volume.id}'},
                                    name=f'{name}-adopted', metadata={'k': 'v'})
    assert adopted.status == 'managing'
    adopted = _until(lambda: cinder.volumes.get(adopted.id), 'available', 'the manage')
    assert (adopted.size, adopted.name, adopted.metadata) == (2, f'{name}-adopted', {'k': 'v'})

    snapshot = cinder.volume_snapshots.create(adopted.id, name=f'{name}-s')
    _until(lambda: cinder.volume_snapshots.get(snapshot.id), 'available', 'the snapshot')
    cinder.volume_snapshots.unmanage(snapshot)
    _gone(lambda: cinder.volume_snapshots.get(snapshot.id), 'the snapshot unmanage')
    listed = _entries(cinder.volume_snapshots.list_manageable(backend))
    assert listed[f'snapshot-{snapshot.id}'].source_reference == {
        'source-name': f'volume-{adopted.id}'}
    cinder.volume_snapshots.manage(adopted.id, {'source-name': f'snapshot-{snapshot.id}'},
                                   name=f'{name}-s2')
    (again,) = cinder.volume_snapshots.list(search_opts={'name': f'{name}-s2'})
    again = _until(lambda: cinder.volume_snapshots.get(again.id), 'available',
                   'the snapshot manage')
    assert again.size == 2
    cinder.volume_snapshots.delete(again)
    _gone(lambda: cinder.volume_snapshots.get(again.id), 'the snapshot delete')
    cinder.volumes.delete(adopted)


def test_cinderclient_manage_refusals(cinder, name):
    volume = _volume(cinder, name)
    with pytest.raises(exceptions.BadRequest, match="Host 'nowhere@b1' not found"):
        cinder.volumes.manage('nowhere@b1', {'source-name': 'x'})
    with pytest.raises(exceptions.BadRequest, match='Invalid sort keys passed: status'):
        cinder.volumes.list_manageable(_backend(cinder.volumes.get(volume.id)), sort='status')
    with pytest.raises(exceptions.NotFound):
        cinder.volume_snapshots.manage('00000000-0000-0000-0000-000000000000', 'x')
    cinder.volumes.delete(volume)


def test_cinder_cli_manage_commands(cinder, cinder_cli, name):
    volume = _volume(cinder, name)
    backend = _backend(cinder.volumes.get(volume.id))
    cinder_cli('unmanage', volume.id)
    _gone(lambda: cinder.volumes.get(volume.id), 'the CLI unmanage')
    assert f'volume-{volume.id}' in cinder_cli('manageable-list', backend)
    shown = _fields(cinder_cli('manage', '--name', f'{name}-cli', backend,
                               f'volume-{volume.id}'))
    adopted = _until(lambda: cinder.volumes.get(shown['id']), 'available', 'the CLI manage')
    snapshot = _fields(cinder_cli('snapshot-create', adopted.id))
    _until(lambda: cinder.volume_snapshots.get(snapshot['id']), 'available', 'the snapshot')
    cinder_cli('snapshot-unmanage', snapshot['id'])
    _gone(lambda: cinder.volume_snapshots.get(snapshot['id']), 'the CLI snapshot unmanage')
    assert f'snapshot-{snapshot["id"]}' in cinder_cli('snapshot-manageable-list', backend)
    cinder_cli('snapshot-manage', '--name', f'{name}-cs', adopted.id,
               f'snapshot-{snapshot["id"]}')
    (again,) = cinder.volume_snapshots.list(search_opts={'name': f'{name}-cs'})
    _until(lambda: cinder.volume_snapshots.get(again.id), 'available', 'the CLI snapshot')
    cinder.volume_snapshots.delete(again)
    _gone(lambda: cinder.volume_snapshots.get(again.id), 'the snapshot delete')
    cinder.volumes.delete(adopted)


def test_openstacksdk_manage_and_unmanage(stack, cinder, name):
    # NOTE(microversion): noauth gives the sdk no version document to negotiate with, and
    # /manageable_volumes answers from 3.8 (Cinder's 404 below it).
    bs = _connect(stack, block_storage_default_microversion='3.8')
    volume = _volume(cinder, name)
    backend = _backend(cinder.volumes.get(volume.id))
    bs.unmanage_volume(volume.id)
    _gone(lambda: cinder.volumes.get(volume.id), 'the sdk unmanage')
    listed = {m.reference['source-name']: m for m in bs.manageable_volumes(host=backend,
                                                                           details=True)}
    assert listed[f'volume-{volume.id}'].safe_to_manage is True
    adopted = bs.manage_volume(host=backend, ref={'source-name': f'volume-{volume.id}'},
                               name=f'{name}-sdk')
    adopted = _until(lambda: cinder.volumes.get(adopted.id), 'available', 'the sdk manage')
    snapshot = cinder.volume_snapshots.create(adopted.id)
    _until(lambda: cinder.volume_snapshots.get(snapshot.id), 'available', 'the snapshot')
    bs.unmanage_snapshot(snapshot.id)
    _gone(lambda: cinder.volume_snapshots.get(snapshot.id), 'the sdk snapshot unmanage')
    assert f'snapshot-{snapshot.id}' in [
        m.reference['source-name'] for m in bs.manageable_snapshots(host=backend)]
    made = bs.manage_snapshot(volume_id=adopted.id,
                              ref={'source-name': f'snapshot-{snapshot.id}'})
    _until(lambda: cinder.volume_snapshots.get(made.id), 'available', 'the sdk snapshot')
    cinder.volume_snapshots.delete(made.id)
    _gone(lambda: cinder.volume_snapshots.get(made.id), 'the snapshot delete')
    cinder.volumes.delete(adopted)
