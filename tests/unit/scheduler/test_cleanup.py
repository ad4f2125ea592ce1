"""scheduler/cleanup.py: which services a workers cleanup reaches, through which queue, and
the scheduler's own cleanup of volumes a stopped scheduler never placed."""

import datetime

import pytest
import sqlalchemy as sa

from cinderlike import context
from cinderlike.db import messages as db_messages
from cinderlike.db import services as db_services
from cinderlike.db import volumes as db_volumes
from cinderlike.db import workers as db_workers
from cinderlike.db.models import Service, Volume, utcnow
from cinderlike.scheduler import cleanup
from tests.fixtures import daemons


class Recorder:
    def __init__(self):
        self.casts = []

    def do_cleanup(self, ctx, **kwargs):
        self.casts.append(kwargs)


def _service(db, host, *, age=0, cluster=None, binary='cinder-volume'):
    row = db_services.register(db, host=host, binary=binary, topic=binary,
                               availability_zone='nova', cluster_name=cluster)
    beat = utcnow() - datetime.timedelta(seconds=age)
    with db.writer() as s:
        s.execute(sa.update(Service).where(Service.id == row.id).values(updated_at=beat))
    return row


@pytest.fixture
def conf():
    return daemons.make_conf(service_down_time=60)


def _distribute(db, conf, **request):
    volume_api, scheduler_api, backup_api = Recorder(), Recorder(), Recorder()
    cleaning, unavailable = cleanup.distribute(
        db, conf=conf, request={'until': '2030-01-01T00:00:00', **request},
        volume_api=volume_api, scheduler_api=scheduler_api, backup_api=backup_api,
        ctx=context.get_admin_context())
    _distribute.backup_casts = backup_api.casts
    return ([s.host for s in cleaning], [s.host for s in unavailable], volume_api.casts,
            scheduler_api.casts)


def test_down_services_go_to_their_live_cluster_or_are_unavailable(db, conf):
    dead = _service(db, 'a@lvm', age=600, cluster='c1@lvm')
    _service(db, 'b@lvm', cluster='c1@lvm')
    _service(db, 'c@nfs', age=600, cluster='c2@nfs')  # its whole cluster is down
    _service(db, 'd@lvm', age=600)
    cleaning, unavailable, casts, _ = _distribute(db, conf)
    assert cleaning == ['a@lvm'] and unavailable == ['c@nfs', 'd@lvm']
    assert casts == [{'cleanup_request': {'service_ids': [dead.id],
                                          'until': '2030-01-01T00:00:00',
                                          'resource_type': None, 'resource_id': None},
                      'host': 'a@lvm', 'cluster_name': 'c1@lvm'}]


def test_is_up_selects_live_services_cast_to_their_host_or_any_scheduler(db, conf):
    live = _service(db, 'e@lvm')
    scheduler = _service(db, 'node1', binary='cinder-scheduler')
    backup = _service(db, 'node1', binary='cinder-backup')
    cleaning, _, casts, scheduler_casts = _distribute(db, conf, is_up=True)
    assert cleaning == ['e@lvm', 'node1', 'node1']
    assert [(c['host'], c['cleanup_request']['service_ids'])
            for c in _distribute.backup_casts] == [('node1', [backup.id])]
    assert [(c['host'], c['cluster_name']) for c in casts] == [('e@lvm', None)]
    assert casts[0]['cleanup_request']['service_ids'] == [live.id]
    assert [c['cleanup_request']['service_ids'] for c in scheduler_casts] == [[scheduler.id]]


def test_filters_by_host_level_binary_and_id(db, conf):
    first = _service(db, 'node2@lvm', age=600, cluster='c1@lvm')
    _service(db, 'node3@lvm', age=600, cluster='c1@lvm')
    _service(db, 'node4@lvm', cluster='c1@lvm')
    assert _distribute(db, conf, host='node2')[0] == ['node2@lvm']
    assert _distribute(db, conf, service_id=first.id)[0] == ['node2@lvm']
    assert _distribute(db, conf, binary='cinder-scheduler')[:2] == ([], [])


def test_scheduler_cleanup_errors_only_old_unplaced_creates_with_a_message(db, conf):
    old = db_volumes.create(db, values={'status': 'creating', 'size': 1, 'volume_type_id': 't',
                                        'project_id': 'p1'})
    db_workers.begin(db, resource_type='Volume', resource_id=old.id, status='creating',
                     service_id=None)
    placed = db_volumes.create(db, values={'status': 'creating', 'size': 1, 'host': 'a@lvm',
                                                 'volume_type_id': 't'})
    with db.writer() as s:
        long_ago = utcnow() - datetime.timedelta(seconds=600)
        s.execute(sa.update(Volume).values(created_at=long_ago, updated_at=long_ago))
    fresh = db_volumes.create(db, values={'status': 'creating', 'size': 1, 'volume_type_id': 't'})
    assert cleanup.clean_unplaced(db, context.get_admin_context(), conf=conf,
                                  until=utcnow()) == 1
    statuses = {v: db_volumes.get(db, volume_id=v).status for v in (old.id, placed.id, fresh.id)}
    assert statuses == {old.id: 'error', placed.id: 'creating', fresh.id: 'creating'}
    assert db_workers.get(db, resource_type='Volume', resource_id=old.id) is None
    (message,) = db_messages.get_all(db, project_id='p1')
    assert (message.resource_uuid, message.event_id) == (old.id, 'VOLUME_VOLUME_001_001')


def test_a_down_backup_service_is_cleaned_by_a_live_one_of_its_zone(db, conf):
    dead = _service(db, 'bk-dead', age=600, binary='cinder-backup')
    _service(db, 'bk-live', binary='cinder-backup')
    cleaning, unavailable, _, _ = _distribute(db, conf, binary='cinder-backup')
    assert (cleaning, unavailable) == (['bk-dead'], [])
    assert [(c['host'], c['cleanup_request']['service_ids'])
            for c in _distribute.backup_casts] == [('bk-live', [dead.id])]


def test_a_down_backup_service_without_a_live_peer_is_unavailable(db, conf):
    _service(db, 'bk-dead', age=600, binary='cinder-backup')
    assert _distribute(db, conf, binary='cinder-backup')[:2] == ([], ['bk-dead'])


def test_a_resource_type_reaches_only_the_services_holding_its_rows(db, conf):
    _service(db, 'node2@lvm', age=600)
    _service(db, 'node2', age=600, binary='cinder-scheduler')
    dead = _service(db, 'bk-dead', age=600, binary='cinder-backup')
    _service(db, 'bk-live', binary='cinder-backup')
    cleaning, _, casts, scheduler_casts = _distribute(db, conf, resource_type='Backup')
    assert (cleaning, casts, scheduler_casts) == (['bk-dead'], [], [])
    assert [(c['host'], c['cleanup_request']['resource_type'])
            for c in _distribute.backup_casts] == [('bk-live', 'Backup')]
    assert dead.id == _distribute.backup_casts[0]['cleanup_request']['service_ids'][0]
    # A down volume service out of a cluster has no one to clean it: unavailable.
    assert _distribute(db, conf, resource_type='Snapshot')[:2] == ([], ['node2@lvm'])
    assert _distribute.backup_casts == []
    cleaning, unavailable, _, _ = _distribute(db, conf, resource_type='Volume')
    assert (cleaning, sorted(unavailable)) == ([], ['node2', 'node2@lvm'])
    assert _distribute.backup_casts == []
