"""drivers/volume/fake.py: capacity accounting, thick refusal, latency and failure injection."""

import pytest

from cinderlike import exception
from cinderlike.drivers.volume import base, fake


def _driver(backend_conf, sleeps=None, **options):
    configuration = backend_conf(fake.DRIVER_OPTS, volume_backend_name='fast', **options)
    sleep = sleeps.append if sleeps is not None else None
    return fake.FakeDriver(configuration, host='h@b1', sleep=sleep)


def _ref(name, size):
    return base.VolumeRef(id=name, name_id=name, size=size)


def _pool(driver):
    return driver.get_volume_stats(refresh=True)['pools'][0]


def test_create_extend_clone_delete_are_counted_in_the_pool(backend_conf):
    driver = _driver(backend_conf, fake_total_capacity_gb=100)
    a, b = _ref('a', 10), _ref('b', 12)
    assert driver.create_volume(a) == {'provider_location': 'fake://h@b1/volume-a'}
    driver.extend_volume(a, 15)
    driver.create_cloned_volume(b, a)
    pool = _pool(driver)
    assert (pool['allocated_capacity_gb'], pool['free_capacity_gb']) == (27, 73)
    assert pool['pool_name'] == 'fast' and pool['thin_provisioning_support'] is True
    driver.delete_volume(a)
    driver.delete_volume(a)  # deleting what the backend lacks is not an error
    assert not driver.has_volume(a) and driver.has_volume(b)
    assert _pool(driver)['allocated_capacity_gb'] == 12


def test_thick_backend_refuses_what_does_not_fit(backend_conf):
    driver = _driver(backend_conf, fake_total_capacity_gb=10, fake_thin_provisioning=False)
    driver.create_volume(_ref('a', 8))
    with pytest.raises(exception.VolumeBackendAPIException):
        driver.create_volume(_ref('b', 3))
    with pytest.raises(exception.VolumeBackendAPIException):
        driver.extend_volume(_ref('a', 8), 11)
    pool = _pool(driver)
    assert (pool['thick_provisioning_support'], pool['allocated_capacity_gb']) == (True, 8)


def test_clone_of_a_missing_source_fails(backend_conf):
    with pytest.raises(exception.VolumeBackendAPIException):
        _driver(backend_conf).create_cloned_volume(_ref('b', 1), _ref('a', 1))


def test_latency_per_operation(backend_conf):
    slept = []
    driver = _driver(backend_conf, slept, fake_latency={'create_volume': '0.25'})
    driver.create_volume(_ref('a', 1))
    driver.delete_volume(_ref('a', 1))
    assert slept == [0.25]


def test_failure_injection_per_operation(backend_conf):
    driver = _driver(backend_conf, fake_fail=['extend_volume', 'delete_volume_busy'])
    volume = _ref('a', 1)
    driver.create_volume(volume)
    with pytest.raises(exception.VolumeBackendAPIException, match='injected'):
        driver.extend_volume(volume, 2)
    with pytest.raises(exception.VolumeIsBusy):
        driver.delete_volume(volume)
    assert driver.has_volume(volume)


def test_connection_info(backend_conf):
    info = _driver(backend_conf).initialize_connection(_ref('a', 1), {'host': 'h'})
    assert info == {'driver_volume_type': 'fake', 'data': {'volume_id': 'a', 'access_mode': 'rw'}}


def test_thick_backend_that_does_not_refuse_accepts_everything(backend_conf):
    driver = _driver(backend_conf, fake_total_capacity_gb=10, fake_thin_provisioning=False,
                     fake_refuse_overcommit=False)
    driver.create_volume(_ref('a', 8))
    driver.create_volume(_ref('b', 8))
    pool = _pool(driver)
    assert (pool['thick_provisioning_support'], pool['allocated_capacity_gb']) == (True, 16)


def test_what_is_left_after_unmanage_is_listed_and_managed_under_the_new_name(backend_conf):
    driver = _driver(backend_conf)
    old, new = _ref('old', 2), _ref('new', 0)
    driver.create_volume(old)
    driver.create_snapshot(base.SnapshotRef(id='s1', volume=old, volume_size=2))
    driver.unmanage(old)
    page = dict(marker=None, limit=10, offset=None, sort_keys=['size'], sort_dirs=['asc'])
    (entry,) = driver.get_manageable_volumes([], **page)
    assert (entry['reference'], entry['size'], entry['safe_to_manage']) == (
        {'source-name': old.name}, 2, True)
    assert driver.get_manageable_volumes([old], **page)[0]['reason_not_safe'] == \
        'already managed'
    assert driver.manage_existing_get_size(new, {'source-name': old.name}) == 2
    driver.manage_existing(new, {'source-name': old.name})
    assert driver.has_volume(new) and not driver.has_volume(old)
    (snapshot,) = driver.get_manageable_snapshots([], **page)
    assert snapshot['source_reference'] == {'source-name': new.name}
    with pytest.raises(exception.ManageExistingInvalidReference):
        driver.manage_existing_get_size(new, {'source-name': 'nothing'})
