"""The volume manager on the file driver (real qemu-img): create → write → extend → clone →
delete, with the data written before the clone found in the clone."""

import os

import pytest

from cinderlike.conf import volume as volume_conf
from cinderlike.db import volumes as db_volumes
from cinderlike.drivers.volume import base, file
from cinderlike.volume import manager as volume_manager
from tests.unit.volume.conftest import HOST, add_volume, ctx, grow_claim, row

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
