"""volume/recovery.py: start-up cleanup, automatic take-over of a down cluster peer's rows,
and fencing of the displaced holder (its late writes are refused, nothing released twice)."""

import contextlib
import datetime
import logging
import threading

import pytest
import sqlalchemy as sa

from cinderlike import quota
from cinderlike.db import services as db_services
from cinderlike.db import volumes as db_volumes
from cinderlike.db import workers as db_workers
from cinderlike.db.models import Service, utcnow
from cinderlike.drivers.volume import base
from cinderlike.volume import manager as volume_manager
from cinderlike.volume import recovery
from tests.fixtures import daemons
from tests.unit.volume.conftest import (
    PROJECT,
    add_volume,
    claimed,
    ctx,
    grow_claim,
    row,
    usage,
    workers,
)

CLUSTER = 'c1@lvm'


class NoLocks:
    """A peer's coordinator: its lock is another process's, expired with the dead holder."""

    def get_lock(self, name):
        return contextlib.nullcontext()


def _service(db, host, *, age=0, cluster=CLUSTER):
    row_ = db_services.register(db, host=host, binary='cinder-volume', topic='cinder-volume',
                                availability_zone='nova', cluster_name=cluster)
    beat = utcnow() - datetime.timedelta(seconds=age)
    with db.writer() as s:
        s.execute(sa.update(Service).where(Service.id == row_.id).values(updated_at=beat))
    return row_


def _held_by(db, volume, status, service_id, request=None):
    _, hold = db_workers.begin_for(db, db_volumes.MACHINE, row_id=volume.id, status=status,
                                   service_id=service_id, request=request)
    return hold


def _available(manager, db, size=2):
    volume = add_volume(db, size=size)
    manager.create_volume(ctx(), volume_id=volume.id, request_spec={}, filter_properties={})
    return row(db, volume.id)


@pytest.fixture
def clustered(conf, manager):
    conf.set_override('cluster', 'c1')
    return manager


def test_startup_cleanup_sets_our_creates_to_error_and_gives_the_claim_back(manager, db):
    volume = add_volume(db, size=3)
    _held_by(db, volume, 'creating', manager.service_id)
    assert recovery.do_cleanup(manager, ctx(), recovery.own_request(manager)) == 1
    assert row(db, volume.id).status == 'error'
    assert claimed(db) == 0 and workers(db) == []
    # NOTE(quota): as Cinder, the error volume keeps its quota until it is deleted.
    assert usage(db, 'gigabytes') == (3, 0)


def test_startup_cleanup_resumes_our_delete(manager, db):
    volume = _available(manager, db)
    db_volumes.MACHINE.begin(db, row_id=volume.id, action='delete')
    _held_by(db, volume, 'deleting', manager.service_id)
    recovery.do_cleanup(manager, ctx(), recovery.own_request(manager))
    assert row(db, volume.id).deleted
    assert claimed(db) == 0 and workers(db) == [] and usage(db, 'gigabytes') == (0, 0)


def test_startup_cleanup_resumes_our_unmanage_keeping_the_backend_object(manager, db):
    volume = _available(manager, db)
    db_volumes.MACHINE.begin(db, row_id=volume.id, action='unmanage')
    _held_by(db, volume, 'unmanaging', manager.service_id)
    recovery.do_cleanup(manager, ctx(), recovery.own_request(manager))
    assert row(db, volume.id).deleted
    assert claimed(db) == 0 and workers(db) == [] and usage(db, 'gigabytes') == (0, 0)
    assert manager.driver.has_volume(base.VolumeRef.of(row(db, volume.id)))


def test_a_stale_row_is_removed_without_touching_the_volume(manager, db):
    volume = add_volume(db, status='available')
    db_workers.begin(db, resource_type='Volume', resource_id=volume.id, status='creating',
                     service_id=manager.service_id)
    recovery.do_cleanup(manager, ctx(), recovery.own_request(manager))
    assert row(db, volume.id).status == 'available' and workers(db) == []


def test_down_peer_extend_is_error_extending_with_reservations_and_claim_back(clustered, db):
    peer = _service(db, 'node2@lvm', age=600)
    volume = _available(clustered, db, size=1)
    db_volumes.MACHINE.begin(db, row_id=volume.id, action='extend')
    reservations = quota.reserve(db, ctx(), conf=daemons.make_conf(), project_id=PROJECT,
                                 deltas={'gigabytes': 2})
    grow_claim(db, 2)
    _held_by(db, volume, 'extending', peer.id,
             request={'new_size': 3, 'reservations': reservations})
    assert recovery.clean_down_peers(clustered, ctx()) == 1
    assert row(db, volume.id).status == 'error_extending' and row(db, volume.id).size == 1
    assert claimed(db) == 1 and usage(db, 'gigabytes') == (1, 0) and workers(db) == []


def test_only_down_members_of_our_cluster_are_taken_over(clustered, db):
    live = _service(db, 'node2@lvm', age=0)
    elsewhere = _service(db, 'node3@lvm', age=600, cluster='other@lvm')
    dead = _service(db, 'node4@lvm', age=600)
    volumes = {sid: add_volume(db) for sid in (live.id, elsewhere.id, dead.id)}
    for sid, volume in volumes.items():
        _held_by(db, volume, 'creating', sid)
    assert [p.id for p in recovery.down_peers(clustered)] == [dead.id]
    recovery.clean_down_peers(clustered, ctx())
    assert row(db, volumes[dead.id].id).status == 'error'
    assert {w.service_id for w in workers(db)} == {live.id, elsewhere.id}


def test_automatic_cleanup_follows_its_option(clustered, db, conf):
    dead = _service(db, 'node2@lvm', age=600)
    volume = add_volume(db)
    _held_by(db, volume, 'creating', dead.id)
    conf.set_override('auto_cleanup_enabled', False)
    clustered._auto_cleanup(ctx())
    assert row(db, volume.id).status == 'creating'
    conf.set_override('auto_cleanup_enabled', True)
    clustered._auto_cleanup(ctx())
    assert row(db, volume.id).status == 'error'
    assert clustered.periodic_option('auto_cleanup_interval') == 10


def test_a_failed_cleanup_gives_the_row_back_to_its_service(clustered, db, monkeypatch):
    dead = _service(db, 'node2@lvm', age=600)
    volume = add_volume(db)
    _held_by(db, volume, 'creating', dead.id)
    before = workers(db)[0]

    def broken(*args, **kwargs):
        raise RuntimeError('database went away')
    monkeypatch.setitem(recovery._SETTLERS['Volume'][1], 'creating', broken)
    recovery.clean_down_peers(clustered, ctx())
    after = workers(db)[0]
    assert (after.service_id, after.updated_at) == (dead.id, before.updated_at)
    assert after.epoch == before.epoch + 1
    assert row(db, volume.id).status == 'creating'


class Gate:
    """The driver's latency: blocks until the test opens the gate."""

    def __init__(self):
        self.entered = threading.Event()
        self.opened = threading.Event()

    def __call__(self, seconds):
        self.entered.set()
        assert self.opened.wait(30)


def _slow(conf, manager, operation):
    conf.set_override('fake_latency', {operation: 1}, group='lvm')
    gate = Gate()
    manager.driver._sleep = gate
    return gate


def _peer(conf, db, host='node2@lvm'):
    _service(db, host)
    peer = volume_manager.VolumeManager(conf, host=host, db=db, backend='lvm',
                                        coordinator=NoLocks())
    peer.driver.do_setup(None)
    peer.initialized = True
    return peer


def test_a_displaced_create_cannot_overwrite_the_peers_error(manager, db, conf, caplog):
    volume = add_volume(db, size=2)
    gate = _slow(conf, manager, 'create_volume')
    worker = threading.Thread(target=manager.create_volume, args=(ctx(),), kwargs={
        'volume_id': volume.id, 'request_spec': {}, 'filter_properties': {}})
    worker.start()
    assert gate.entered.wait(30)
    peer = _peer(conf, db)
    recovery.do_cleanup(peer, ctx(), recovery.CleanupRequest(
        service_ids=(manager.service_id,)))
    assert row(db, volume.id).status == 'error' and claimed(db) == 0
    with caplog.at_level(logging.WARNING):
        gate.opened.set()
        worker.join(30)
    assert row(db, volume.id).status == 'error' and claimed(db) == 0 and workers(db) == []
    refusals = [r.getMessage() for r in caplog.records if 'refused' in r.getMessage()]
    assert len(refusals) == 1
    assert volume.id in refusals[0] and 'our epoch 1, now settled' in refusals[0]
    # the refusal is the whole story: no error traceback on top of it
    assert [r for r in caplog.records if r.levelno >= logging.ERROR] == []


def test_a_displaced_delete_releases_nothing_twice(manager, db, conf, caplog):
    volume = _available(manager, db, size=2)
    db_volumes.MACHINE.begin(db, row_id=volume.id, action='delete')
    gate = _slow(conf, manager, 'delete_volume')
    worker = threading.Thread(target=manager.delete_volume, args=(ctx(),),
                              kwargs={'volume_id': volume.id})
    worker.start()
    assert gate.entered.wait(30)
    peer = _peer(conf, db)
    recovery.do_cleanup(peer, ctx(), recovery.CleanupRequest(
        service_ids=(manager.service_id,)))
    assert row(db, volume.id).deleted
    with caplog.at_level(logging.WARNING):
        gate.opened.set()
        worker.join(30)
    assert claimed(db) == 0 and usage(db, 'gigabytes') == (0, 0) and workers(db) == []
    assert any('refused' in r.getMessage() and volume.id in r.getMessage()
               for r in caplog.records)
