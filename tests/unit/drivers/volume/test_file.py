"""drivers/volume/file.py with the real qemu-img: files, sizes, data through a clone."""

import json
import os
import subprocess

import pytest
from os_brick.initiator.connectors import local

from cinderlike import exception
from cinderlike.drivers.volume import base, file

pytestmark = pytest.mark.qemu_img

GiB = 1024 ** 3


def _driver(backend_conf, **options):
    driver = file.FileDriver(backend_conf(file.DRIVER_OPTS, **options), host='h@b1')
    driver.do_setup(None)
    driver.check_for_setup_error()
    return driver


def _ref(name, size):
    return base.VolumeRef(id=name, name_id=name, size=size)


def _info(path):
    out = subprocess.run(['qemu-img', 'info', '--output=json', path], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


def test_directory_defaults_under_state_path(backend_conf, tmp_path):
    driver = _driver(backend_conf)
    assert driver.path(_ref('a', 1)) == str(tmp_path / 'volumes' / 'volume-a')


def test_raw_life_cycle_keeps_data_written_through_the_local_connector(backend_conf):
    driver = _driver(backend_conf)
    src = _ref('src', 1)
    assert driver.create_volume(src) == {'provider_location': driver.path(src)}
    assert os.path.getsize(driver.path(src)) == GiB
    driver.extend_volume(src, 2)
    src = _ref('src', 2)
    assert os.path.getsize(driver.path(src)) == 2 * GiB

    info = driver.initialize_connection(src, {'host': 'h'})
    assert info == {'driver_volume_type': 'local',
                    'data': {'device_path': driver.path(src)}}
    device = local.LocalConnector(None).connect_volume(info['data'])
    with open(device['path'], 'r+b') as disk:
        disk.seek(GiB + 4096)  # past the original size: written into the extension
        disk.write(b'cinderlike data')

    clone = _ref('clone', 3)
    driver.create_cloned_volume(clone, src)
    assert os.path.getsize(driver.path(clone)) == 3 * GiB
    with open(driver.path(clone), 'rb') as disk:
        disk.seek(GiB + 4096)
        assert disk.read(15) == b'cinderlike data'

    pool = driver.get_volume_stats(refresh=True)['pools'][0]
    assert pool['provisioned_capacity_gb'] == 5
    assert pool['thin_provisioning_support'] is True
    assert 0 < pool['free_capacity_gb'] <= pool['total_capacity_gb']

    for volume in (src, clone):
        driver.delete_volume(volume)
        assert not os.path.exists(driver.path(volume))
    driver.delete_volume(src)  # already gone: nothing to do


def test_qcow2_volumes_are_thin_and_grow(backend_conf):
    driver = _driver(backend_conf, file_volume_format='qcow2')
    volume = _ref('q', 1)
    driver.create_volume(volume)
    info = _info(driver.path(volume))
    assert (info['format'], info['virtual-size']) == ('qcow2', GiB)
    assert info['actual-size'] < GiB
    driver.extend_volume(volume, 4)
    clone = _ref('qc', 4)
    driver.create_cloned_volume(clone, _ref('q', 4))
    assert _info(driver.path(clone))['virtual-size'] == 4 * GiB
    pool = driver.get_volume_stats()['pools'][0]
    assert pool['provisioned_capacity_gb'] == 8
    assert pool['thin_provisioning_support'] is True


def test_thick_raw_is_allocated_up_front(backend_conf):
    driver = _driver(backend_conf, file_sparse_volumes=False)
    volume = _ref('t', 1)
    driver.create_volume(volume)
    assert os.stat(driver.path(volume)).st_blocks * 512 >= GiB
    assert driver.get_volume_stats()['pools'][0]['thick_provisioning_support'] is True


def test_qemu_img_failure_is_a_backend_error(backend_conf):
    driver = _driver(backend_conf)
    with pytest.raises(exception.VolumeBackendAPIException):
        driver.extend_volume(_ref('missing', 1), 2)
