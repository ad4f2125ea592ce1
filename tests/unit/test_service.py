"""cinderlike/service.py: the services row, the start order, heartbeats, graceful stop and
SIGHUP log levels."""

import logging
import threading

import pytest

from cinderlike import context, exception, service
from cinderlike.backup import manager as backup_manager
from cinderlike.conf import volume as volume_conf
from cinderlike.db import services as services_db
from cinderlike.drivers.backup import posix
from cinderlike.drivers.volume import fake
from cinderlike.scheduler import manager as scheduler_manager
from cinderlike.scheduler import rpcapi as scheduler_rpcapi
from cinderlike.volume import manager as volume_manager
from tests.fixtures import daemons


class BrokenDriver(fake.FakeDriver):
    """A backend that never comes up."""

    def do_setup(self, context):
        raise OSError('backend unreachable')


@pytest.fixture
def conf():
    conf = daemons.make_conf(report_interval=3600, periodic_interval=3600,
                             periodic_fuzzy_delay=0, host='node1')
    yield conf
    daemons.close_transports()


def _backend(conf, name, **options):
    volume_conf.register_backend(conf, name)
    for key, value in options.items():
        conf.set_override(key, value, group=name)


def _start(conf, db, manager_cls, host='node1', **manager_kwargs):
    svc = service.Service(conf, host=host, manager_cls=manager_cls,
                          manager_kwargs=manager_kwargs, db=db)
    svc.start()
    return svc


def _row(db, svc):
    return services_db.get(db, svc.service_id)


def test_start_registers_the_scheduler_row(conf, db):
    svc = _start(conf, db, scheduler_manager.SchedulerManager)
    try:
        row = _row(db, svc)
        assert (row.binary, row.host, row.topic) == ('cinder-scheduler', 'node1',
                                                     'cinder-scheduler')
        assert row.availability_zone == 'nova'
        assert row.cluster_name is None
        assert row.rpc_current_version == scheduler_rpcapi.RPC_API_VERSION
        assert row.report_count == 0
    finally:
        svc.stop()


def test_volume_row_uses_backend_host_zone_and_cluster(conf, db):
    conf.set_override('cluster', 'cl1')
    _backend(conf, 'lvm1', volume_driver='fake', backend_availability_zone='zone-b')
    svc = _start(conf, db, volume_manager.VolumeManager, host='node1@lvm1', backend='lvm1')
    try:
        row = _row(db, svc)
        assert (row.binary, row.host, row.topic) == ('cinder-volume', 'node1@lvm1',
                                                     'cinder-volume')
        assert row.availability_zone == 'zone-b'
        assert row.cluster_name == 'cl1@lvm1'
    finally:
        svc.stop()


def _volume_service(conf, tmp_path):
    _backend(conf, 'lvm1', volume_driver='fake')
    return volume_manager.VolumeManager, 'node1@lvm1', {'backend': 'lvm1'}


def _backup_service(conf, tmp_path):
    conf.register_opts(posix.DRIVER_OPTS)
    conf.set_override('backup_driver', 'posix')
    conf.set_override('backup_posix_path', str(tmp_path))
    return backup_manager.BackupManager, 'node1', {}


@pytest.mark.parametrize('configure, reporter', [
    (_volume_service, '_report_capabilities'),
    (_backup_service, 'publish_service_capabilities'),
], ids=['volume', 'backup'])
def test_capabilities_are_reported_once_the_rpc_servers_consume(conf, db, monkeypatch, tmp_path,
                                                                configure, reporter):
    """A scheduler that learns of a backend before its queues exist places creates whose casts
    RabbitMQ drops; the first report waits for every RPC server."""
    servers_at_report = []
    manager_cls, host, kwargs = configure(conf, tmp_path)
    monkeypatch.setattr(manager_cls, reporter,
                        lambda self, ctxt: servers_at_report.append(len(svc._servers)))
    svc = service.Service(conf, host=host, manager_cls=manager_cls, manager_kwargs=kwargs,
                          db=db)
    svc.start()
    try:
        assert servers_at_report == [len(svc.manager.rpc_targets())]
    finally:
        svc.stop()


def _scripted_wait(svc, db, beats):
    """A stop-event wait that records (timeout, report_count) and stops after *beats* beats."""
    calls = []

    def wait(timeout):
        calls.append((timeout, _row(db, svc).report_count))
        return len(calls) > beats
    return wait, calls


def test_first_heartbeat_comes_after_one_interval_and_counts(conf, db):
    svc = _start(conf, db, scheduler_manager.SchedulerManager)
    try:
        wait, calls = _scripted_wait(svc, db, beats=2)
        svc.heartbeat_loop(wait)
        # each beat follows a full report_interval wait; none happens before the first
        assert calls == [(3600, 0), (3600, 1), (3600, 2)]
        row = _row(db, svc)
        assert row.report_count == 2
        assert row.updated_at is not None
    finally:
        svc.stop()


def test_no_heartbeat_while_the_driver_is_not_initialised(conf, db):
    _backend(conf, 'broken', volume_driver=f'{__name__}.BrokenDriver', reinit_driver_count=0)
    svc = _start(conf, db, volume_manager.VolumeManager, host='node1@broken',
                 backend='broken')
    try:
        assert not svc.manager.is_working()
        wait, calls = _scripted_wait(svc, db, beats=2)
        svc.heartbeat_loop(wait)
        assert [count for _, count in calls] == [0, 0, 0]
        assert _row(db, svc).updated_at is None
    finally:
        svc.stop()


def test_heartbeat_registers_again_when_the_row_was_removed(conf, db):
    svc = _start(conf, db, scheduler_manager.SchedulerManager)
    try:
        old_id = svc.service_id
        services_db.soft_delete(db, old_id)
        svc.report_state()
        assert svc.service_id != old_id
        assert _row(db, svc).binary == 'cinder-scheduler'
    finally:
        svc.stop()


class SlowScheduler(scheduler_manager.SchedulerManager):
    """A manager with one RPC method that blocks until the test releases it."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.started = threading.Event()
        self.release = threading.Event()
        self.finished = False

    def slow(self, context):
        self.started.set()
        self.release.wait(30)
        self.finished = True


def test_stop_lets_an_in_flight_rpc_finish(conf, db):
    svc = _start(conf, db, SlowScheduler)
    client = scheduler_rpcapi.SchedulerAPI(conf).client
    client.prepare(server='node1').cast(context.get_admin_context(), 'slow')
    daemons.wait_for(svc.manager.started.is_set)
    seen_by_stop = []
    stopper = threading.Thread(target=lambda: (svc.stop(),
                                               seen_by_stop.append(svc.manager.finished)))
    stopper.start()
    svc.manager.release.set()
    stopper.join(30)
    assert seen_by_stop == [True]


def test_reset_applies_log_levels_from_the_config(conf, db):
    svc = service.Service(conf, host='node1', manager_cls=scheduler_manager.SchedulerManager,
                          db=db)
    root = logging.getLogger()
    saved = root.level, logging.getLogger('amqp').level
    try:
        conf.set_override('debug', True)
        conf.set_override('default_log_levels', ['amqp=ERROR'])
        svc.reset()
        assert root.level == logging.DEBUG
        assert logging.getLogger('amqp').level == logging.ERROR
    finally:
        root.setLevel(saved[0])
        logging.getLogger('amqp').setLevel(saved[1])


def test_a_failed_start_raises_and_releases_wait(conf, db):
    _backend(conf, 'nodriver')
    svc = service.Service(conf, host='node1@nodriver', manager_cls=volume_manager.VolumeManager,
                          manager_kwargs={'backend': 'nodriver'}, db=db)
    with pytest.raises(exception.VolumeDriverNotFound):
        svc.start()
    svc.wait()  # returns: nothing is left running
    assert services_db.get_all(db) == []


@pytest.mark.parametrize('own_process', [True, False])
def test_a_daemons_service_limits_its_arenas_and_freezes_its_heap(conf, db, monkeypatch,
                                                                  own_process):
    seen = []
    monkeypatch.setattr(service.heap, 'limit_malloc_arenas',
                        lambda: seen.append(('arenas', svc.service_id is None)))
    monkeypatch.setattr(service.heap, 'freeze_startup_objects', lambda: seen.append(
        ('freeze', svc.service_id is not None and bool(svc._servers))))
    svc = service.Service(conf, host='node1', manager_cls=scheduler_manager.SchedulerManager,
                          db=db, own_process=own_process)
    svc.start()
    try:
        # the arenas before anything starts, the freeze once its row is registered and its
        # RPC servers run; only in a daemon's own process
        assert seen == ([('arenas', True), ('freeze', True)] if own_process else [])
    finally:
        svc.stop()
        svc.wait()
