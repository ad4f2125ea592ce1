"""scheduler/manager.py: reports by fanout, placement with DB claims, extend, get_pools."""

import datetime

import pytest
import sqlalchemy as sa

from cinderlike import context, service
from cinderlike.backup import manager as backup_manager
from cinderlike.db import messages as db_messages
from cinderlike.db import pools as db_pools
from cinderlike.db import services as db_services
from cinderlike.db import volumes as db_volumes
from cinderlike.db import workers as db_workers
from cinderlike.scheduler import manager as scheduler_manager
from cinderlike.scheduler import rpcapi as scheduler_rpcapi
from tests.fixtures import daemons, flaky_db
from tests.unit.backup.test_manager import posix_conf
from tests.unit.scheduler import placing

T0 = placing.T0
SHIFT = scheduler_rpcapi.SEQUENCE_SHIFT


def _report(seq, *, at=T0, free=100, host='node1@lvm'):
    return dict(service_name='volume', host=host, cluster_name=None,
                capabilities={'free_capacity_gb': free}, timestamp=at.isoformat(),
                sequence=seq)


@pytest.fixture
def db():
    return daemons.make_db()


@pytest.fixture
def manager(db):
    mgr = scheduler_manager.SchedulerManager(
        daemons.make_conf(scheduler_driver_init_wait_time=1), host='s1', db=db)
    mgr.volume_api = placing.Recorder()
    mgr.notifier = placing.Recorder()
    yield mgr
    daemons.close_transports()


@pytest.fixture
def ctxt():
    return context.RequestContext(user_id='u1', project_id='p1')


def _held(manager, host='node1@lvm'):
    return manager.capabilities.get('volume', host).capabilities['free_capacity_gb']


def test_a_report_with_a_higher_sequence_replaces_the_held_one(manager):
    manager.update_service_capabilities(None, **_report(1, free=100))
    manager.update_service_capabilities(None, **_report(2, free=90))
    assert _held(manager) == 90


def test_an_older_sequence_is_ignored_whatever_its_timestamp(manager):
    later = T0 + datetime.timedelta(seconds=30)
    manager.update_service_capabilities(None, **_report(5, free=50))
    # delivered late, and stamped by a clock that has since jumped forward: still older
    manager.update_service_capabilities(None, **_report(4, at=later, free=80))
    manager.update_service_capabilities(None, **_report(5, free=70))
    assert _held(manager) == 50


def test_a_restarted_publisher_continues_above_the_old_sequence(manager):
    old = scheduler_rpcapi.CapabilityPublisher(None, service_name='volume', host='h',
                                               start_time=lambda: 1000)
    new = scheduler_rpcapi.CapabilityPublisher(None, service_name='volume', host='h',
                                               start_time=lambda: 1001)
    old_seqs = [next(old._sequence) for _ in range(50)]
    assert next(new._sequence) > old_seqs[-1]
    manager.update_service_capabilities(None, **_report(old_seqs[-1], free=50))
    manager.update_service_capabilities(None, **_report((1001 << SHIFT) + 1, free=70))
    manager.update_service_capabilities(None, **_report(old_seqs[-2], free=10))
    assert _held(manager) == 70


def test_reports_are_kept_per_backend(manager):
    manager.update_service_capabilities(None, **_report(3, host='node1@a', free=1))
    manager.update_service_capabilities(None, **_report(1, host='node1@b', free=2))
    assert (_held(manager, 'node1@a'), _held(manager, 'node1@b')) == (1, 2)


def test_create_places_on_the_best_pool_claims_and_casts(manager, db, ctxt):
    placing.add_backend(db, manager, 'n1@lvm', total=100)
    placing.add_backend(db, manager, 'n2@lvm', total=500)
    volume_id = placing.add_volume(db, size=10)
    manager.create_volume(ctxt, volume_id=volume_id, request_spec=placing.spec(volume_id),
                          filter_properties={})
    volume = db_volumes.get(db, volume_id=volume_id)
    assert volume.host == 'n2@lvm#pool1' and volume.scheduled_at is not None
    claims = db_pools.claims(db)
    assert claims['n2@lvm#pool1'] == (10, 10) and claims['n1@lvm#pool1'] == (0, 0)
    (name, _, kwargs), = manager.volume_api.calls
    assert name == 'create_volume' and kwargs['host'] == 'n2@lvm#pool1'
    assert kwargs['filter_properties']['retry'] == {
        'num_attempts': 1, 'backends': ['n2@lvm#pool1'], 'hosts': ['n2@lvm#pool1']}
    assert db_pools.drift(db) == []


def test_a_failed_claim_falls_through_to_the_next_candidate(manager, db, ctxt):
    placing.add_backend(db, manager, 'n1@lvm', total=100)
    placing.add_backend(db, manager, 'n2@lvm', total=500)
    # another scheduler filled the best pool since this one last read the claims
    manager.host_manager.pools()
    assert db_pools.claim(db, pool='n2@lvm#pool1', size_gb=495)
    volume_id = placing.add_volume(db, size=10)
    manager.create_volume(ctxt, volume_id=volume_id, request_spec=placing.spec(volume_id),
                          filter_properties={})
    assert db_volumes.get(db, volume_id=volume_id).host == 'n1@lvm#pool1'
    assert db_pools.claims(db)['n1@lvm#pool1'] == (10, 10)


@pytest.mark.parametrize('after_commit', [False, True], ids=['before', 'commit-answer-lost'])
def test_a_placement_the_database_dropped_is_tried_again_and_counted_once(
        manager, db, ctxt, after_commit):
    """A dead connection fails the claim's transaction, or loses the answer to its COMMIT:
    the placement is tried again, the create cast once and the claim counted once."""
    placing.add_backend(db, manager, 'n1@lvm', total=100)
    volume_id = placing.add_volume(db, size=10)
    attempts = flaky_db.unreachable_for(db, 1, after_commit=after_commit)
    manager.create_volume(ctxt, volume_id=volume_id, request_spec=placing.spec(volume_id),
                          filter_properties={})
    flaky_db.reachable(db)
    assert len(attempts) == 2
    assert db_volumes.get(db, volume_id=volume_id).host == 'n1@lvm#pool1'
    (name, _, kwargs), = manager.volume_api.calls
    assert (name, kwargs['host']) == ('create_volume', 'n1@lvm#pool1')
    assert db_pools.claims(db)['n1@lvm#pool1'] == (10, 10)
    assert db_pools.drift(db) == []


def test_a_pools_read_the_database_dropped_is_tried_again(manager, db, ctxt, monkeypatch):
    placing.add_backend(db, manager, 'n1@lvm', total=100)
    volume_id = placing.add_volume(db, size=10)
    db.retry = flaky_db.FAST_RETRIES
    pools, calls = manager.host_manager.pools, []

    def dropped_once(**kwargs):
        calls.append(kwargs)
        if len(calls) == 1:
            raise sa.exc.OperationalError('SELECT', {}, ConnectionResetError('reset'))
        return pools(**kwargs)
    monkeypatch.setattr(manager.host_manager, 'pools', dropped_once)
    manager.create_volume(ctxt, volume_id=volume_id, request_spec=placing.spec(volume_id),
                          filter_properties={})
    assert len(calls) == 2
    (name, _, kwargs), = manager.volume_api.calls
    assert kwargs['filter_properties']['retry']['num_attempts'] == 1
    assert db_volumes.get(db, volume_id=volume_id).host == 'n1@lvm#pool1'


def test_no_valid_backend_errors_the_volume_with_message_and_notification(manager, db, ctxt):
    placing.add_backend(db, manager, 'n1@lvm', total=100)
    volume_id = placing.add_volume(db, size=200)
    request_spec = placing.spec(volume_id, size=200)
    manager.create_volume(ctxt, volume_id=volume_id, request_spec=request_spec,
                          filter_properties={})
    volume = db_volumes.get(db, volume_id=volume_id)
    assert (volume.status, volume.host) == ('error', None)
    message, = db_messages.get_all(db, project_id='p1')
    assert (message.event_id, message.resource_uuid) == ('VOLUME_VOLUME_001_003', volume_id)
    (name, (_, event, payload), _), = manager.notifier.calls
    assert (name, event) == ('error', 'scheduler.create_volume')
    assert payload['volume_id'] == volume_id and payload['method'] == 'create_volume'
    assert payload['state'] == {'volume_state': {'status': 'error'}}
    assert payload['request_spec'] == request_spec and 'No valid backend' in payload['reason']
    assert manager.volume_api.calls == [] and db_pools.claims(db)['n1@lvm#pool1'] == (0, 0)


def test_a_message_that_cannot_be_written_still_leaves_the_volume_error(
        manager, db, ctxt, monkeypatch):
    placing.add_backend(db, manager, 'n1@lvm', total=100)
    volume_id = placing.add_volume(db, size=200)

    def unwritable(*_args, **_kwargs):
        raise sa.exc.OperationalError('INSERT', {}, RuntimeError('messages table gone'))
    monkeypatch.setattr(db_messages, 'create', unwritable)
    manager.create_volume(ctxt, volume_id=volume_id,
                          request_spec=placing.spec(volume_id, size=200), filter_properties={})
    assert db_volumes.get(db, volume_id=volume_id).status == 'error'
    assert db_messages.get_all(db, project_id='p1') == []


def test_a_down_or_disabled_service_gets_nothing(manager, db, ctxt):
    placing.add_backend(db, manager, 'n1@lvm', total=100)
    db_services.set_disabled(db, host='n1@lvm', binary='cinder-volume', disabled=True,
                             reason='test')
    manager.host_manager._services.get(fresh=True)
    assert manager.host_manager.pools() == []


def test_a_volume_deleted_before_placement_is_not_placed(manager, db, ctxt):
    placing.add_backend(db, manager, 'n1@lvm', total=100)
    volume_id = placing.add_volume(db, size=10)
    db_volumes.destroy(db, volume_id=volume_id)
    manager.create_volume(ctxt, volume_id=volume_id, request_spec=placing.spec(volume_id),
                          filter_properties={})
    assert manager.volume_api.calls == [] and db_pools.claims(db)['n1@lvm#pool1'] == (0, 0)


def _extending_volume(db, size=10):
    volume_id = placing.add_volume(db, size=size, status='available', host='n1@lvm#pool1')
    assert db_pools.claim(db, pool='n1@lvm#pool1', size_gb=size)
    db_volumes.MACHINE.begin(db, row_id=volume_id, action='extend')
    return volume_id


def test_a_report_gathered_before_a_placement_and_delivered_after_keeps_its_claim(
        manager, db, ctxt):
    placing.add_backend(db, manager, 'n1@lvm', total=100, seq=1)
    # gathered now, before the placement: the backend has nothing allocated yet
    stale = placing.capabilities(total=100, free=100, allocated_capacity_gb=0,
                                 provisioned_capacity_gb=0)
    first = placing.add_volume(db, size=60)
    manager.create_volume(ctxt, volume_id=first, request_spec=placing.spec(first, size=60),
                          filter_properties={})
    assert db_volumes.get(db, volume_id=first).host == 'n1@lvm#pool1'
    # ... and delivered after it, to the database and to the scheduler (bug 1553731)
    placing.record(db, 'n1@lvm', stale, seq=2)
    manager.update_service_capabilities(None, service_name='volume', host='n1@lvm',
                                        capabilities=stale, cluster_name=None,
                                        timestamp=T0.isoformat(), sequence=2)
    assert manager.capabilities.get('volume', 'n1@lvm').sequence == 2
    caps = manager.get_pools(ctxt)[0]['capabilities']
    assert (caps['allocated_capacity_gb'], caps['provisioned_capacity_gb']) == (60, 60)
    second = placing.add_volume(db, size=60)
    manager.create_volume(ctxt, volume_id=second, request_spec=placing.spec(second, size=60),
                          filter_properties={})
    assert db_volumes.get(db, volume_id=second).status == 'error'
    third = placing.add_volume(db, size=40)
    manager.create_volume(ctxt, volume_id=third, request_spec=placing.spec(third, size=40),
                          filter_properties={})
    assert db_volumes.get(db, volume_id=third).host == 'n1@lvm#pool1'
    assert db_pools.claims(db)['n1@lvm#pool1'] == (100, 100)
    assert db_pools.drift(db) == []


def test_extend_claims_the_difference_and_casts(manager, db, ctxt):
    placing.add_backend(db, manager, 'n1@lvm', total=100)
    volume_id = _extending_volume(db)
    manager.extend_volume(ctxt, volume_id=volume_id, new_size=30, reservations=['r1'],
                          request_spec=placing.spec(volume_id))
    assert db_pools.claims(db)['n1@lvm#pool1'] == (30, 30)
    (name, _, kwargs), = manager.volume_api.calls
    assert (name, kwargs['new_size'], kwargs['host']) == ('extend_volume', 30, 'n1@lvm#pool1')


def test_extend_beyond_the_pool_restores_the_volume(manager, db, ctxt):
    placing.add_backend(db, manager, 'n1@lvm', total=100)
    volume_id = _extending_volume(db)
    manager.extend_volume(ctxt, volume_id=volume_id, new_size=200, reservations=[],
                          request_spec=placing.spec(volume_id))
    assert db_volumes.get(db, volume_id=volume_id).status == 'available'
    assert db_pools.claims(db)['n1@lvm#pool1'] == (10, 10)
    message, = db_messages.get_all(db, project_id='p1')
    assert message.event_id == 'VOLUME_VOLUME_007_003'
    (_, (_, event, payload), _), = manager.notifier.calls
    assert event == 'scheduler.extend_volume'
    assert payload['state'] == {'volume_state': {'status': 'available'}}
    assert manager.volume_api.calls == []


def test_extend_notes_its_claim_in_the_untaken_workers_row(manager, db, ctxt):
    placing.add_backend(db, manager, 'n1@lvm', total=100)
    volume_id = _extending_volume(db)
    db_workers.begin(db, resource_type='Volume', resource_id=volume_id, status='extending',
                     service_id=None, request={'new_size': 30, 'claimed': False})
    manager.extend_volume(ctxt, volume_id=volume_id, new_size=30, reservations=[],
                          request_spec=placing.spec(volume_id))
    worker = db_workers.get(db, resource_type='Volume', resource_id=volume_id)
    assert worker.request == {'new_size': 30, 'claimed': True}


def test_an_extend_swept_before_it_was_scheduled_claims_nothing(manager, db, ctxt):
    """Its workers row was taken (a sweep settles it): no claim, no cast, no rollback."""
    placing.add_backend(db, manager, 'n1@lvm', total=100)
    volume_id = _extending_volume(db)
    db_workers.begin(db, resource_type='Volume', resource_id=volume_id, status='extending',
                     service_id=manager.service_id or _any_service(db))
    manager.extend_volume(ctxt, volume_id=volume_id, new_size=30, reservations=['r1'],
                          request_spec=placing.spec(volume_id))
    assert db_pools.claims(db)['n1@lvm#pool1'] == (10, 10)
    assert manager.volume_api.calls == []
    assert db_volumes.get(db, volume_id=volume_id).status == 'extending'


def test_a_stale_extend_of_a_volume_no_longer_extending_claims_nothing(manager, db, ctxt):
    placing.add_backend(db, manager, 'n1@lvm', total=100)
    volume_id = _extending_volume(db)
    db_volumes.MACHINE.reset(db, row_id=volume_id, values={'status': 'error_extending'})
    manager.extend_volume(ctxt, volume_id=volume_id, new_size=30, reservations=['r1'],
                          request_spec=placing.spec(volume_id))
    assert db_pools.claims(db)['n1@lvm#pool1'] == (10, 10)
    assert manager.volume_api.calls == []


def _any_service(db):
    return db_services.get_all(db)[0].id


def test_get_pools_shows_the_database_claims_and_filters(manager, db, ctxt):
    placing.add_backend(db, manager, 'n1@lvm', total=100)
    placing.add_backend(db, manager, 'n2@lvm', total=100, thin=True, ratio='2.0')
    db_pools.claim(db, pool='n1@lvm#pool1', size_gb=40)
    pools = manager.get_pools(ctxt)
    assert [p['name'] for p in pools] == ['n1@lvm#pool1', 'n2@lvm#pool1']
    caps = pools[0]['capabilities']
    assert (caps['allocated_capacity_gb'], caps['provisioned_capacity_gb']) == (40, 40)
    thin = manager.get_pools(ctxt, filters={'thin_provisioning_support': 'true'})
    assert [p['name'] for p in thin] == ['n2@lvm#pool1']
    assert manager.get_pools(ctxt, filters={'name': 'n1@lvm#pool1'})[0]['name'] == \
        'n1@lvm#pool1'


def test_drift_check_logs_without_repairing(manager, db, caplog):
    placing.add_backend(db, manager, 'n1@lvm', total=100)
    db_pools.claim(db, pool='n1@lvm#pool1', size_gb=5)
    manager._check_capacity_drift(None)
    assert 'Capacity drift on pool n1@lvm#pool1' in caplog.text
    assert db_pools.claims(db)['n1@lvm#pool1'] == (5, 5)


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
    finally:
        for svc in schedulers:
            svc.stop()
        daemons.close_transports()


def test_a_scheduler_started_last_asks_the_services_to_report(tmp_path):
    conf = posix_conf(tmp_path, report_interval=3600, periodic_interval=3600,
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


def _creating_snapshot(db, volume_id):
    from cinderlike.db import snapshots as db_snapshots
    from cinderlike.db.models import VolumeType
    with db.writer() as s:
        if s.get(VolumeType, 'vt') is None:
            # NOTE: placing.add_volume's type id; the scheduler filters on the type.
            s.add(VolumeType(id='vt', name='vt-type'))
    volume = db_volumes.get(db, volume_id=volume_id)
    return db_snapshots.create(db, values={
        'volume_id': volume_id, 'project_id': 'p1', 'volume_size': volume.size,
        'volume_type_id': volume.volume_type_id})


def test_create_snapshot_checks_the_volumes_backend_then_casts(manager, db, ctxt):
    placing.add_backend(db, manager, 'n1@lvm', total=100)
    volume_id = placing.add_volume(db, size=10, status='available', host='n1@lvm#pool1')
    snapshot = _creating_snapshot(db, volume_id)
    manager.create_snapshot(ctxt, snapshot_id=snapshot.id, volume_id=volume_id,
                            request_spec={'snapshot_id': snapshot.id,
                                          'volume_properties': {'size': 10}})
    (name, _, kwargs), = manager.volume_api.calls
    assert (name, kwargs['snapshot_id'], kwargs['host']) == (
        'create_snapshot', snapshot.id, 'n1@lvm#pool1')
    # NOTE: a snapshot holds no capacity claim.
    assert db_pools.claims(db).get('n1@lvm#pool1', (0, 0)) == (0, 0)


def test_create_snapshot_on_a_backend_that_cannot_take_it_ends_in_error(manager, db, ctxt):
    from cinderlike.db import snapshots as db_snapshots
    placing.add_backend(db, manager, 'n1@lvm', total=100)
    volume_id = placing.add_volume(db, size=10, status='available', host='n1@lvm#pool1')
    snapshot = _creating_snapshot(db, volume_id)
    manager.create_snapshot(ctxt, snapshot_id=snapshot.id, volume_id=volume_id,
                            request_spec={'snapshot_id': snapshot.id,
                                          'volume_properties': {'size': 500}})
    assert db_snapshots.get(db, snapshot_id=snapshot.id).status == 'error'
    message, = db_messages.get_all(db, project_id='p1')
    assert (message.event_id, message.resource_type) == ('VOLUME_VOLUME_SNAPSHOT_009_003',
                                                         'VOLUME_SNAPSHOT')
    assert manager.volume_api.calls == []


def test_a_report_no_scheduler_can_receive_yet_is_a_warning_not_a_failure(caplog):
    import oslo_messaging

    class NoExchange:
        def update_service_capabilities(self, ctxt, **kwargs):
            raise oslo_messaging.MessageDeliveryFailure(
                "no exchange 'cinder-scheduler_fanout'")
    publisher = scheduler_rpcapi.CapabilityPublisher(NoExchange(), service_name='volume',
                                                     host='h@b')
    recorded = []
    with caplog.at_level('WARNING'):
        sent = publisher.publish(None, lambda: {'free_capacity_gb': 1},
                                 lambda caps, **kw: recorded.append(caps))
    assert sent == {'free_capacity_gb': 1} and recorded == [sent]
    assert 'not delivered' in caplog.text and 'Traceback' not in caplog.text


def test_the_create_cast_carries_the_received_filter_properties_and_the_retry(
        manager, db, ctxt):
    """Not what prepare() derived from the request spec: the volume service reads only the
    retry, and a reschedule derives the rest again."""
    placing.add_backend(db, manager, 'n1@lvm', total=100)
    volume_id = placing.add_volume(db, size=10)
    hints = {'scheduler_hints': {'same_host': []}}
    manager.create_volume(ctxt, volume_id=volume_id, request_spec=placing.spec(volume_id),
                          filter_properties=dict(hints))
    (name, _, kwargs), = manager.volume_api.calls
    assert kwargs['filter_properties'] == dict(hints, retry={
        'num_attempts': 1, 'backends': ['n1@lvm#pool1'], 'hosts': ['n1@lvm#pool1']})
    assert kwargs['request_spec'] == placing.spec(volume_id)


def test_a_reschedules_cast_carries_the_counted_retry_without_its_error(manager, db, ctxt):
    placing.add_backend(db, manager, 'n1@lvm', total=100)
    placing.add_backend(db, manager, 'n2@lvm', total=500)
    volume_id = placing.add_volume(db, size=10)
    retry = {'num_attempts': 1, 'backends': ['n2@lvm#pool1'], 'hosts': ['n2@lvm#pool1'],
             'exc': ['VolumeBackendAPIException: boom\n']}
    manager.create_volume(ctxt, volume_id=volume_id, request_spec=placing.spec(volume_id),
                          filter_properties={'retry': retry})
    (name, _, kwargs), = manager.volume_api.calls
    assert kwargs['host'] == 'n1@lvm#pool1'
    assert kwargs['filter_properties'] == {'retry': {
        'num_attempts': 2, 'backends': ['n2@lvm#pool1', 'n1@lvm#pool1'],
        'hosts': ['n2@lvm#pool1', 'n1@lvm#pool1']}}


def test_without_rescheduling_the_create_cast_carries_no_retry(manager, db, ctxt):
    manager.filter_scheduler.max_attempts = 1
    placing.add_backend(db, manager, 'n1@lvm', total=100)
    volume_id = placing.add_volume(db, size=10)
    manager.create_volume(ctxt, volume_id=volume_id, request_spec=placing.spec(volume_id),
                          filter_properties={'retry': {'num_attempts': 1, 'backends': [],
                                                       'hosts': []}})
    (name, _, kwargs), = manager.volume_api.calls
    assert kwargs['filter_properties'] == {}
