"""The volume manager on the file driver (real qemu-img): create → write → extend → clone →
delete, with the data written before the clone found in the clone."""

import os

import pytest
from oslo_concurrency import processutils

from cinderlike.api.operations import snapshots as snapshot_ops
from cinderlike.api.operations import volumes as volume_ops
from cinderlike.conf import volume as volume_conf
from cinderlike.db import volumes as db_volumes
from cinderlike.drivers.volume import base, file
from cinderlike.volume import manager as volume_manager
from tests.unit.volume.conftest import HOST, add_volume, ctx, grow_claim, row
from tests.unit.volume.test_snapshots import RecordingRPC
from tests.unit.volume.test_snapshots import _row as snapshot_row

pytestmark = pytest.mark.qemu_img

GiB = 1024 ** 3


@pytest.fixture
def file_manager(conf, db, manager, tmp_path):
    """The conftest manager's backend switched to the file driver."""
    volume_conf.register_backend(conf, 'lvm', file.DRIVER_OPTS)
    conf.set_override('volume_driver', 'file', group='lvm')
    conf.set_override('file_volume_directory', str(tmp_path / 'vols'), group='lvm')
    mgr = volume_manager.VolumeManager(conf, host=HOST, db=db, backend='lvm',
                                       coordinator=manager.coordinator)
    assert isinstance(mgr.driver, file.FileDriver)
    mgr.scheduler_api = manager.scheduler_api
    mgr.driver.do_setup(None)
    mgr.initialized = True
    return mgr


def _path(mgr, db, volume_id):
    return mgr.driver.path(base.VolumeRef.of(row(db, volume_id)))


def test_file_volume_life_cycle_keeps_data_through_a_clone(file_manager, db):
    mgr = file_manager
    source = add_volume(db, size=1)
    mgr.create_volume(ctx(), volume_id=source.id, request_spec={}, filter_properties={})
    path = _path(mgr, db, source.id)
    assert row(db, source.id).provider_location == path
    assert os.path.getsize(path) == GiB

    db_volumes.MACHINE.begin(db, row_id=source.id, action='extend')
    grow_claim(db, 1)
    mgr.extend_volume(ctx(), volume_id=source.id, new_size=2, reservations=[])
    assert row(db, source.id).status == 'available' and os.path.getsize(path) == 2 * GiB

    info = mgr.driver.initialize_connection(base.VolumeRef.of(row(db, source.id)), {})
    with open(info['data']['device_path'], 'r+b') as disk:
        disk.seek(GiB + 512)
        disk.write(b'written before the clone')

    clone = add_volume(db, size=2, source_volid=source.id)
    mgr.create_volume(ctx(), volume_id=clone.id, request_spec={}, filter_properties={})
    assert row(db, clone.id).status == 'available'
    with open(_path(mgr, db, clone.id), 'rb') as disk:
        disk.seek(GiB + 512)
        assert disk.read(24) == b'written before the clone'

    for volume_id in (clone.id, source.id):
        gone = _path(mgr, db, volume_id)
        db_volumes.MACHINE.begin(db, row_id=volume_id, action='delete')
        mgr.delete_volume(ctx(), volume_id=volume_id)
        assert row(db, volume_id).deleted and not os.path.exists(gone)



BEFORE, AFTER = 0x41, 0x42


def _write(fmt, path, value):
    """512 bytes of *value* at offset 4096, as a host writes through its device."""
    if fmt == 'raw':
        with open(path, 'r+b') as disk:
            disk.seek(4096)
            disk.write(bytes([value]) * 512)
        return
    processutils.execute('qemu-io', '-f', fmt, '-c', f'write -P {value} 4096 512', path)


def _holds(fmt, path, value) -> bool:
    """Whether the 512 bytes at offset 4096 are all *value*."""
    if fmt == 'raw':
        with open(path, 'rb') as disk:
            disk.seek(4096)
            return disk.read(512) == bytes([value]) * 512
    out, err = processutils.execute('qemu-io', '-f', fmt, '-c', f'read -P {value} 4096 512',
                                    path, check_exit_code=False)
    return 'read 512/512 bytes' in out and 'failed' not in out + err


@pytest.mark.parametrize('fmt', ['raw', 'qcow2'])
def test_a_snapshot_keeps_the_data_it_was_taken_with(file_manager, db, conf, fmt):
    """Write, snapshot, overwrite: a volume made from the snapshot (bigger) and the reverted
    original both read what was written before the snapshot."""
    conf.set_override('file_volume_format', fmt, group='lvm')
    mgr, rpc = file_manager, RecordingRPC()
    volume = add_volume(db, size=1)
    mgr.create_volume(ctx(), volume_id=volume.id, request_spec={}, filter_properties={})
    path = _path(mgr, db, volume.id)
    _write(fmt, path, BEFORE)

    snapshot = snapshot_ops.create(conf, db, rpc, ctx(), volume_id=volume.id)
    mgr.create_snapshot(ctx(), snapshot_id=snapshot.id)
    assert snapshot_row(db, snapshot.id).status == 'available'
    _write(fmt, path, AFTER)
    assert _holds(fmt, path, AFTER)

    copy = add_volume(db, size=2, snapshot_id=snapshot.id)
    mgr.create_volume(ctx(), volume_id=copy.id, request_spec={'snapshot_id': snapshot.id},
                      filter_properties={})
    assert row(db, copy.id).status == 'available'
    copy_path = _path(mgr, db, copy.id)
    assert _holds(fmt, copy_path, BEFORE)
    assert mgr.driver._virtual_size(copy_path) == 2 * GiB

    volume_ops.revert(db, rpc, ctx(), volume_id=volume.id, snapshot_id=snapshot.id)
    mgr.revert_to_snapshot(ctx(), volume_id=volume.id, snapshot_id=snapshot.id)
    assert row(db, volume.id).status == 'available' and _holds(fmt, path, BEFORE)

    snapshot_ops.delete(db, rpc, ctx(), snapshot_id=snapshot.id)
    ref = base.SnapshotRef.of(snapshot_row(db, snapshot.id), volume)
    assert os.path.exists(mgr.driver.snapshot_path(ref))
    mgr.delete_snapshot(ctx(), snapshot_id=snapshot.id)
    assert snapshot_row(db, snapshot.id).deleted
    assert not os.path.exists(mgr.driver.snapshot_path(ref))
