"""The volume service's side of os-services freeze / thaw / failover_host: what it does with
its driver and its own services row."""

from cinderlike import exception
from cinderlike.db import services as db_services
from tests.unit.volume.conftest import HOST, ctx


def _row(manager):
    (row,) = db_services.get_all(manager.db, host=HOST, binary='cinder-volume')
    return row


def _register(manager):
    db_services.register(manager.db, host=HOST, binary='cinder-volume', topic='cinder-volume',
                         availability_zone='nova')


def test_freeze_disables_with_reason_frozen_even_if_the_driver_complains(manager):
    _register(manager)

    def complain(context):
        raise exception.VolumeDriverException(message='array busy')
    manager.driver.freeze_backend = complain
    assert manager.freeze_host(ctx()) is True
    row = _row(manager)
    assert (row.disabled, row.disabled_reason) == (True, 'frozen')


def test_thaw_enables_unless_the_driver_refuses(manager):
    _register(manager)
    manager.freeze_host(ctx())
    original = manager.driver.thaw_backend

    def refuse(context):
        raise exception.VolumeDriverException(message='still replicating')
    manager.driver.thaw_backend = refuse
    assert manager.thaw_host(ctx()) is False
    assert _row(manager).disabled is True
    manager.driver.thaw_backend = original
    assert manager.thaw_host(ctx()) is True
    row = _row(manager)
    assert (row.disabled, row.disabled_reason) == (False, '')


def test_failover_of_a_driver_without_replication_records_failover_error(manager):
    _register(manager)
    manager.failover_host(ctx(), secondary_backend_id='secondary')
    row = _row(manager)
    assert (row.disabled, row.replication_status) == (True, 'failover-error')
