"""scheduler/manager.py: capability reports arrive by fanout and the newest per backend wins."""

import datetime

import pytest

from cinderlike import context, service
from cinderlike.backup import manager as backup_manager
from cinderlike.scheduler import manager as scheduler_manager
from cinderlike.scheduler import rpcapi as scheduler_rpcapi
from tests.fixtures import daemons

T0 = datetime.datetime(2026, 1, 1, 12, 0, 0)


def _report(seq, *, at=T0, incarnation='a', free=100, host='node1@lvm'):
    return dict(service_name='volume', host=host, cluster_name=None,
                capabilities={'free_capacity_gb': free}, timestamp=at.isoformat(),
                sequence=seq, incarnation=incarnation)


@pytest.fixture
def manager():
    return scheduler_manager.SchedulerManager(daemons.make_conf(), host='s1', db=None)


def _held(manager, host='node1@lvm'):
    return manager.capabilities.get('volume', host).capabilities['free_capacity_gb']


def test_a_report_with_a_higher_sequence_replaces_the_held_one(manager):
    ctxt = context.get_admin_context()
    manager.update_service_capabilities(ctxt, **_report(1, free=100))
    manager.update_service_capabilities(ctxt, **_report(2, free=90))
    assert _held(manager) == 90


def test_an_older_sequence_from_the_same_process_is_ignored(manager):
    ctxt = context.get_admin_context()
    later = T0 + datetime.timedelta(seconds=30)
    manager.update_service_capabilities(ctxt, **_report(5, free=50))
    # delivered late, and stamped by a clock that has since jumped forward: still older
    manager.update_service_capabilities(ctxt, **_report(4, at=later, free=80))
    manager.update_service_capabilities(ctxt, **_report(5, free=70))
    assert _held(manager) == 50


def test_a_restarted_process_wins_by_timestamp_despite_a_lower_sequence(manager):
    ctxt = context.get_admin_context()
    manager.update_service_capabilities(ctxt, **_report(40, free=50))
    restart = T0 + datetime.timedelta(seconds=5)
    manager.update_service_capabilities(ctxt, **_report(1, at=restart, incarnation='b',
                                                        free=70))
    assert _held(manager) == 70
    # a straggler from the dead process is older than what we hold now
    manager.update_service_capabilities(ctxt, **_report(41, at=T0, free=10))
    assert _held(manager) == 70


def test_reports_are_kept_per_backend(manager):
    ctxt = context.get_admin_context()
    manager.update_service_capabilities(ctxt, **_report(3, host='node1@a', free=1))
    manager.update_service_capabilities(ctxt, **_report(1, host='node1@b', free=2))
    assert (_held(manager, 'node1@a'), _held(manager, 'node1@b')) == (1, 2)


def test_publisher_reports_reach_every_scheduler_by_fanout_in_order():
    conf = daemons.make_conf(report_interval=3600, periodic_interval=3600,
                             periodic_fuzzy_delay=0)
    db = daemons.make_db()
    schedulers = [service.Service(conf, host=h, manager_cls=scheduler_manager.SchedulerManager,
                                  db=db, shared_transport=True) for h in ('s1', 's2')]
    for svc in schedulers:
        svc.start()
    try:
        publisher = scheduler_rpcapi.CapabilityPublisher(
            scheduler_rpcapi.SchedulerAPI(conf), service_name='volume', host='node1@lvm')
        ctxt = context.get_admin_context()
        for free in (100, 90, 80):
            publisher.publish(ctxt, lambda free=free: {'free_capacity_gb': free})
        for svc in schedulers:
            daemons.wait_for(lambda svc=svc: svc.manager.capabilities.get('volume', 'node1@lvm')
                             and _held(svc.manager) == 80)
            assert svc.manager.capabilities.get('volume', 'node1@lvm').sequence == 3
    finally:
        for svc in schedulers:
            svc.stop()
        daemons.close_transports()


def test_a_scheduler_started_last_asks_the_services_to_report():
    conf = daemons.make_conf(report_interval=3600, periodic_interval=3600,
                             periodic_fuzzy_delay=0)
    db = daemons.make_db()
    backup = service.Service(conf, host='b1', manager_cls=backup_manager.BackupManager,
                             db=db, shared_transport=True)
    scheduler = service.Service(conf, host='s1',
                                manager_cls=scheduler_manager.SchedulerManager, db=db,
                                shared_transport=True)
    backup.start()   # its start-up report finds no scheduler listening
    scheduler.start()
    try:
        daemons.wait_for(lambda: scheduler.manager.capabilities.get('backup', 'b1'))
    finally:
        scheduler.stop()
        backup.stop()
        daemons.close_transports()
