"""Manage and unmanage on the file driver (real qemu-img): an existing file becomes a volume
with its bytes, quota and capacity claim; unmanage leaves the file and gives both back."""

import hashlib
import os

import pytest

from cinderlike import exception
from cinderlike.api.operations import manageable as manage_ops
from cinderlike.db import placements
from cinderlike.db import volumes as db_volumes
from cinderlike.drivers.volume import base
from tests.unit.api.volume_fixtures import RecordingRPC
from tests.unit.volume import conftest, test_file_backend
from tests.unit.volume.conftest import POOL, add_volume, claimed, ctx, row
from tests.unit.volume.test_snapshots import _row as snapshot_row

pytestmark = pytest.mark.qemu_img
file_manager = test_file_backend.file_manager

GiB = 1024 ** 3
HOST = POOL.partition('#')[0]
DATA = os.urandom(64 * 1024)


def usage(db, resource) -> tuple[int, int]:
    """(in_use, reserved), (0, 0) before the project's first use of *resource*."""
    try:
        return conftest.usage(db, resource)
    except Exception:
        return 0, 0


def _legacy_file(mgr, name='legacy.img', size=GiB + 4096) -> str:
    """A sparse raw file of *size* bytes with DATA at its start and at its end."""
    path = os.path.join(mgr.driver.configuration.file_volume_directory, name)
    with open(path, 'wb') as image:
        image.truncate(size)
        image.write(DATA)
        image.seek(size - len(DATA))
        image.write(DATA)
    return path


def _digest(path, offset) -> str:
    with open(path, 'rb') as image:
        image.seek(offset)
        return hashlib.sha256(image.read(len(DATA))).hexdigest()


def _manage(mgr, db, ref, **kwargs):
    """POST /manageable_volumes' operation, the scheduler's placement, the volume service."""
    rpc = RecordingRPC()
    volume, _vtype = manage_ops.manage_volume(mgr.conf, db, rpc, ctx(), host=HOST,
                                              cluster_name=None, ref=ref, **kwargs)
    assert rpc.scheduler.calls == [('manage_existing', {
        'volume_id': volume.id, 'ref': ref, 'request_spec': rpc.scheduler.calls[0][1][
            'request_spec']})]
    assert placements.place_managed(db, volume_id=volume.id, host=POOL, cluster_name=None)
    mgr.manage_existing(ctx(), volume_id=volume.id, ref=ref)
    return row(db, volume.id)


def test_a_file_is_managed_read_through_its_connection_and_left_on_unmanage(file_manager, db):
    mgr = file_manager
    original = _legacy_file(mgr)
    before = claimed(db)
    volume = _manage(mgr, db, {'source-name': 'legacy.img'}, name='adopted')
    assert (volume.status, volume.size, volume.use_quota) == ('available', 2, True)
    assert volume.launched_at is not None and volume.display_name == 'adopted'
    path = mgr.driver.path(base.VolumeRef.of(volume))
    assert not os.path.exists(original) and volume.provider_location == path
    assert usage(db, 'volumes') == (1, 0) and usage(db, 'gigabytes') == (2, 0)
    assert claimed(db) == before + 2
    info = mgr.driver.initialize_connection(base.VolumeRef.of(volume), {})
    device = info['data']['device_path']
    # NOTE(size): the file grew to the 2 GiB it reports; its bytes stayed where they were.
    assert os.path.getsize(device) == 2 * GiB
    assert _digest(device, 0) == _digest(device, GiB + 4096 - len(DATA)) == \
        hashlib.sha256(DATA).hexdigest()

    rpc = RecordingRPC()
    manage_ops.unmanage_volume(mgr.conf, db, rpc, ctx(), volume_id=volume.id)
    assert row(db, volume.id).status == 'unmanaging'
    (method, kwargs), = rpc.volume.calls
    assert (method, kwargs['unmanage_only']) == ('delete_volume', True)
    mgr.delete_volume(ctx(), volume_id=volume.id, unmanage_only=True)
    with pytest.raises(exception.VolumeNotFound):
        db_volumes.get(db, volume_id=volume.id)
    assert _digest(path, 0) == hashlib.sha256(DATA).hexdigest()
    assert usage(db, 'volumes') == (0, 0) and usage(db, 'gigabytes') == (0, 0)
    assert claimed(db) == before


def test_source_id_names_the_volume_file_of_an_unmanaged_volume(file_manager, db):
    mgr = file_manager
    gone = '0b1c2d3e-0000-4000-8000-00000000aaaa'
    _legacy_file(mgr, name=f'volume-{gone}', size=GiB)
    volume = _manage(mgr, db, {'source-id': gone})
    assert (volume.status, volume.size) == ('available', 1)
    assert _digest(mgr.driver.path(base.VolumeRef.of(volume)), 0) == \
        hashlib.sha256(DATA).hexdigest()


@pytest.mark.parametrize('ref', [
    {'source-name': 'missing.img'}, {'source-name': '../etc'}, {'source-name': 'link.img'},
    {'nothing': 'named'}, 'legacy.img'])
def test_a_bad_reference_ends_error_managing_holding_nothing(file_manager, db, ref):
    mgr = file_manager
    kept = _legacy_file(mgr)
    os.symlink(kept, os.path.join(os.path.dirname(kept), 'link.img'))
    before = claimed(db)
    volume = _manage(mgr, db, ref)
    assert (volume.status, volume.size, volume.use_quota) == ('error_managing', 0, False)
    assert os.path.exists(kept) and claimed(db) == before
    assert usage(db, 'volumes') == (0, 0)


def test_a_qcow2_image_with_a_backing_file_is_refused(file_manager, db, tmp_path):
    mgr = file_manager
    directory = mgr.driver.configuration.file_volume_directory
    mgr.driver._qemu_img('create', '-f', 'qcow2', '-u', '-b', str(tmp_path / 'secret'), '-F',
                         'raw', os.path.join(directory, 'overlay.qcow2'), '1G')
    volume = _manage(mgr, db, {'source-name': 'overlay.qcow2'})
    assert volume.status == 'error_managing'
    (entry,) = mgr.get_manageable_volumes(ctx(), marker=None, limit=10, offset=None,
                                          sort_keys=['reference'], sort_dirs=['asc'])
    assert (entry['safe_to_manage'], entry['reason_not_safe']) == (
        False, 'image refers to other files')


def test_over_quota_ends_error_managing_and_leaves_the_file(file_manager, db):
    mgr = file_manager
    mgr.conf.set_override('quota_gigabytes', 1)
    kept = _legacy_file(mgr)
    volume = _manage(mgr, db, {'source-name': 'legacy.img'})
    assert volume.status == 'error_managing'
    assert os.path.exists(kept) and usage(db, 'gigabytes') == (0, 0)


def test_deleting_an_error_managing_volume_releases_no_quota(file_manager, db):
    mgr = file_manager
    add_volume(db, status='available', size=1)
    volume = _manage(mgr, db, {'source-name': 'missing.img'})
    db_volumes.MACHINE.begin(db, row_id=volume.id, action='delete')
    mgr.delete_volume(ctx(), volume_id=volume.id)
    assert usage(db, 'volumes') == (1, 0) and usage(db, 'gigabytes') == (1, 0)


def test_already_managed_is_refused_before_anything_is_written(file_manager, db):
    mgr = file_manager
    managed = _manage(mgr, db, {'source-name': os.path.basename(_legacy_file(mgr))})
    count = len(db_volumes.get_all(db, project_id=None))
    with pytest.raises(exception.InvalidVolume, match='The volume is already managed'):
        manage_ops.manage_volume(mgr.conf, db, RecordingRPC(), ctx(), host=HOST,
                                 cluster_name=None, ref={'source-name': f'volume-{managed.id}'})
    assert len(db_volumes.get_all(db, project_id=None)) == count


def _listed(mgr, snapshots=False, **kwargs):
    method = mgr.get_manageable_snapshots if snapshots else mgr.get_manageable_volumes
    args = dict(marker=None, limit=100, offset=None, sort_keys=['reference'],
                sort_dirs=['asc'])
    return method(ctx(), **dict(args, **kwargs))


def test_manageable_files_with_their_reasons_sorted_and_paged(file_manager, db):
    mgr = file_manager
    managed = _manage(mgr, db, {'source-name': os.path.basename(_legacy_file(mgr))})
    _legacy_file(mgr, name='free.img', size=3 * GiB)
    busy = _legacy_file(mgr, name='busy.img', size=GiB // 2)
    _legacy_file(mgr, name='snapshot-old', size=GiB)
    with open(busy, 'rb'):
        entries = {e['reference']['source-name']: e for e in _listed(mgr)}
    assert set(entries) == {'busy.img', 'free.img', f'volume-{managed.id}'}
    assert entries[f'volume-{managed.id}'] == {
        'reference': {'source-name': f'volume-{managed.id}'}, 'size': 2,
        'safe_to_manage': False, 'reason_not_safe': 'already managed',
        'cinder_id': managed.id, 'extra_info': None}
    assert (entries['busy.img']['safe_to_manage'], entries['busy.img']['reason_not_safe'],
            entries['busy.img']['size']) == (False, 'volume in use', 1)
    assert entries['free.img']['safe_to_manage'] is True
    by_size = [e['size'] for e in _listed(mgr, sort_keys=['size'], sort_dirs=['desc'])]
    assert by_size == [3, 2, 1]
    page = _listed(mgr, marker={'source-name': 'busy.img'}, limit=1)
    assert [e['reference']['source-name'] for e in page] == ['free.img']
    assert [e['reference']['source-name'] for e in _listed(mgr, offset=2)] == [
        f'volume-{managed.id}']
    with pytest.raises(exception.InvalidInput, match='marker not found'):
        _listed(mgr, marker='{"source-name": "nope"}')
    (snapshot_entry,) = _listed(mgr, snapshots=True)
    assert snapshot_entry['reference'] == {'source-name': 'snapshot-old'}
    assert snapshot_entry['safe_to_manage'] is True
    assert snapshot_entry['source_reference'] is None


def test_a_snapshot_file_is_managed_and_left_on_unmanage(file_manager, db):
    mgr = file_manager
    volume = _manage(mgr, db, {'source-name': os.path.basename(_legacy_file(mgr))})
    _legacy_file(mgr, name='snapshot-old', size=GiB)
    rpc = RecordingRPC()
    snapshot = manage_ops.manage_snapshot(mgr.conf, db, rpc, ctx(), volume=volume,
                                          ref={'source-name': 'snapshot-old'}, name='kept')
    assert rpc.scheduler.calls[0][0] == 'manage_existing_snapshot'
    assert usage(db, 'snapshots') == (1, 0) and usage(db, 'gigabytes') == (4, 0)
    mgr.manage_existing_snapshot(ctx(), snapshot_id=snapshot.id,
                                 ref={'source-name': 'snapshot-old'})
    managed = snapshot_row(db, snapshot.id)
    assert (managed.status, managed.volume_size, managed.progress) == ('available', 1, '100%')
    # NOTE(quota): the API committed the volume's 2 GiB; the object holds 1.
    assert usage(db, 'gigabytes') == (3, 0)
    path = mgr.driver.snapshot_path(base.SnapshotRef.of(managed, row(db, volume.id)))
    assert _digest(path, 0) == hashlib.sha256(DATA).hexdigest()
    (entry,) = _listed(mgr, snapshots=True)
    assert (entry['reason_not_safe'], entry['cinder_id']) == ('already managed', snapshot.id)

    manage_ops.unmanage_snapshot(db, rpc, ctx(), snapshot_id=snapshot.id)
    mgr.delete_snapshot(ctx(), snapshot_id=snapshot.id, unmanage_only=True)
    assert _digest(path, 0) == hashlib.sha256(DATA).hexdigest()
    assert usage(db, 'snapshots') == (0, 0) and usage(db, 'gigabytes') == (2, 0)


def test_a_bad_snapshot_reference_ends_error(file_manager, db):
    mgr = file_manager
    volume = _manage(mgr, db, {'source-name': os.path.basename(_legacy_file(mgr))})
    snapshot = manage_ops.manage_snapshot(mgr.conf, db, RecordingRPC(), ctx(), volume=volume,
                                          ref={'source-name': 'nothing'})
    mgr.manage_existing_snapshot(ctx(), snapshot_id=snapshot.id, ref={'source-name': 'nothing'})
    assert snapshot_row(db, snapshot.id).status == 'error'
