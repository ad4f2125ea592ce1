"""db/services.py on SQLite: registration, heartbeats, the up/down rule, enable/disable, filters."""

import datetime

import pytest
import sqlalchemy as sa

from cinderlike import exception
from cinderlike.db import services
from cinderlike.db.models import Service

T0 = datetime.datetime(2025, 3, 1, 12, 0, 0)


def _register(db, host='node1@fake', binary='cinder-volume', **kwargs):
    kwargs.setdefault('topic', 'cinder-volume')
    kwargs.setdefault('availability_zone', 'nova')
    return services.register(db, host=host, binary=binary, **kwargs)


def test_register_twice_takes_over_the_same_row(db):
    first = _register(db, rpc_version='3.20')
    second = _register(db, availability_zone='az2', cluster_name='c1@fake', rpc_version='3.21')
    assert second.id == first.id
    assert second.uuid == first.uuid
    rows = services.get_all(db)
    assert [(r.id, r.availability_zone, r.cluster_name, r.rpc_current_version)
            for r in rows] == [(first.id, 'az2', 'c1@fake', '3.21')]


def test_register_after_removal_creates_a_new_row(db):
    first = _register(db)
    services.soft_delete(db, first.id)
    second = _register(db)
    assert second.id != first.id
    assert [r.id for r in services.get_all(db)] == [second.id]


def test_heartbeat_increments_report_count_and_sets_updated_at(db):
    row = _register(db)
    assert row.report_count == 0
    assert row.updated_at is None
    assert services.heartbeat(db, row.id) is True
    assert services.heartbeat(db, row.id) is True
    beaten = services.get(db, row.id)
    assert beaten.report_count == 2
    assert beaten.updated_at is not None


def test_heartbeat_of_a_removed_service_reports_false(db):
    row = _register(db)
    services.soft_delete(db, row.id)
    assert services.heartbeat(db, row.id) is False


@pytest.mark.parametrize('age, up', [
    (datetime.timedelta(seconds=60), True),
    (datetime.timedelta(seconds=60, microseconds=1), False),
    (datetime.timedelta(0), True),
])
def test_is_up_until_service_down_time_has_passed(age, up):
    service = Service(created_at=T0 - datetime.timedelta(hours=1), updated_at=T0)
    assert services.is_up(service, down_time=60, now=T0 + age) is up


def test_is_up_falls_back_to_created_at_before_the_first_heartbeat():
    service = Service(created_at=T0, updated_at=None)
    assert services.is_up(service, down_time=60, now=T0 + datetime.timedelta(seconds=30))
    assert not services.is_up(service, down_time=60, now=T0 + datetime.timedelta(seconds=61))


def test_is_up_false_for_a_row_without_timestamps():
    assert not services.is_up(Service(), down_time=60, now=T0)


def test_set_disabled_records_the_reason_and_enable_clears_it(db):
    _register(db)
    rows = services.set_disabled(db, host='node1@fake', binary='cinder-volume',
                                 disabled=True, reason='maintenance')
    assert [(r.disabled, r.disabled_reason) for r in rows] == [(True, 'maintenance')]
    rows = services.set_disabled(db, host='node1@fake', binary='cinder-volume', disabled=False)
    assert [(r.disabled, r.disabled_reason) for r in rows] == [(False, None)]


def test_set_disabled_on_an_unknown_host_is_refused(db):
    _register(db)
    with pytest.raises(exception.ServiceNotFound):
        services.set_disabled(db, host='nowhere', binary='cinder-volume', disabled=True)
    assert services.get_all(db, disabled=True) == []


def test_get_all_filters_and_skips_removed_rows(db):
    vol = _register(db, cluster_name='c1@fake')
    sched = _register(db, host='node1', binary='cinder-scheduler', topic='cinder-scheduler')
    other = _register(db, host='node2@fake')
    gone = _register(db, host='node3@fake')
    services.soft_delete(db, gone.id)
    services.set_disabled(db, host='node2@fake', binary='cinder-volume', disabled=True)

    def ids(**filters):
        return [r.id for r in services.get_all(db, **filters)]

    assert ids() == [vol.id, sched.id, other.id]
    assert ids(host='node1@fake') == [vol.id]
    assert ids(binary='cinder-scheduler') == [sched.id]
    assert ids(binary='cinder-volume', disabled=False) == [vol.id]
    assert ids(disabled=True) == [other.id]
    assert ids(cluster_name='c1@fake') == [vol.id]


def test_get_of_unknown_or_removed_service_raises_not_found(db):
    row = _register(db)
    services.soft_delete(db, row.id)
    with db.reader() as session:
        assert session.scalar(sa.select(Service.deleted).where(Service.id == row.id))
    with pytest.raises(exception.ServiceNotFound):
        services.get(db, row.id)
    with pytest.raises(exception.ServiceNotFound):
        services.get(db, row.id + 100)
