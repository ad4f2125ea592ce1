"""volume/recovery.py sweep_lost: operations the API accepted that no service took up (a lost
cast) end in a terminal status after lost_operation_timeout, with a user message when they
failed; and every recovery verdict that fails an operation writes one."""

import datetime

import pytest
import sqlalchemy as sa

from cinderlike import quota
from cinderlike.db import snapshots as db_snapshots
from cinderlike.db import volumes as db_volumes
from cinderlike.db import workers as db_workers
from cinderlike.db.models import Worker, utcnow
from cinderlike.volume import recovery
from tests.fixtures import daemons
from tests.unit.volume.conftest import (
    PROJECT,
    add_volume,
    claimed,
    ctx,
    event_ids,
    grow_claim,
    row,
    usage,
    workers,
)

TIMEOUT = 300


def _untaken(db, resource_type, resource_id, status, *, age, request=None):
    """The workers row an API wrote for an operation, *age* seconds ago, no service yet."""
    db_workers.begin(db, resource_type=resource_type, resource_id=resource_id, status=status,
                     service_id=None, request=request)
    when = utcnow() - datetime.timedelta(seconds=age)
    with db.writer() as s:
        s.execute(sa.update(Worker).where(Worker.resource_id == resource_id)
                  .values(updated_at=when))


@pytest.fixture
def sweeper(conf, manager):
    conf.set_override('lost_operation_timeout', TIMEOUT)
    return manager


def test_a_lost_unplaced_create_ends_error_with_a_scheduling_message(sweeper, db):
    volume = add_volume(db, host=None, claim=False)
    _untaken(db, 'Volume', volume.id, 'creating', age=TIMEOUT + 5)
    assert recovery.sweep_lost(sweeper, ctx()) == 1
    assert row(db, volume.id).status == 'error' and workers(db) == []
    assert event_ids(db) == ['VOLUME_VOLUME_001_001']


def test_a_lost_placed_create_ends_error_and_gives_its_claim_back(sweeper, db):
    volume = add_volume(db, size=2)
    _untaken(db, 'Volume', volume.id, 'creating', age=TIMEOUT + 5)
    assert recovery.sweep_lost(sweeper, ctx()) == 1
    assert row(db, volume.id).status == 'error' and claimed(db) == 0 and workers(db) == []
    assert event_ids(db) == ['VOLUME_VOLUME_008_001']


def test_a_recent_untaken_row_is_left_for_the_service_it_was_cast_to(sweeper, db):
    volume = add_volume(db)
    _untaken(db, 'Volume', volume.id, 'creating', age=TIMEOUT - 60)
    assert recovery.sweep_lost(sweeper, ctx()) == 0
    assert row(db, volume.id).status == 'creating' and len(workers(db)) == 1


def test_a_row_a_service_took_is_not_swept(sweeper, db):
    volume = add_volume(db)
    _untaken(db, 'Volume', volume.id, 'creating', age=TIMEOUT + 5)
    db_workers.begin(db, resource_type='Volume', resource_id=volume.id, status='creating',
                     service_id=sweeper.service_id)
    assert recovery.sweep_lost(sweeper, ctx()) == 0
    assert row(db, volume.id).status == 'creating'


@pytest.mark.parametrize('scheduled', [False, True])
def test_a_lost_extend_ends_error_extending_with_reservations_and_claim_back(sweeper, db,
                                                                            scheduled):
    """Lost before the scheduler (nothing claimed) or after it claimed the extra 2 GB."""
    volume = add_volume(db, status='available', size=1)
    db_volumes.MACHINE.begin(db, row_id=volume.id, action='extend')
    reservations = quota.reserve(db, ctx(), conf=daemons.make_conf(), project_id=PROJECT,
                                 deltas={'gigabytes': 2})
    if scheduled:
        grow_claim(db, 2)
    _untaken(db, 'Volume', volume.id, 'extending', age=TIMEOUT + 5,
             request={'new_size': 3, 'reservations': reservations, 'claimed': scheduled})
    assert recovery.sweep_lost(sweeper, ctx()) == 1
    assert (row(db, volume.id).status, row(db, volume.id).size) == ('error_extending', 1)
    assert usage(db, 'gigabytes') == (1, 0) and workers(db) == [] and claimed(db) == 1
    assert event_ids(db) == ['VOLUME_VOLUME_007_001']


def test_a_lost_delete_of_our_backend_is_resumed(sweeper, db):
    volume = add_volume(db, status='creating', size=2)
    sweeper.create_volume(ctx(), volume_id=volume.id, request_spec={}, filter_properties={})
    db_volumes.MACHINE.begin(db, row_id=volume.id, action='delete')
    _untaken(db, 'Volume', volume.id, 'deleting', age=TIMEOUT + 5)
    assert recovery.sweep_lost(sweeper, ctx()) == 1
    assert row(db, volume.id).deleted and workers(db) == []
    assert claimed(db) == 0 and usage(db, 'gigabytes') == (0, 0)


def test_a_lost_delete_of_another_backend_is_left_to_it(sweeper, db):
    volume = add_volume(db, status='available', host='other@lvm#lvm', claim=False)
    db_volumes.MACHINE.begin(db, row_id=volume.id, action='delete')
    _untaken(db, 'Volume', volume.id, 'deleting', age=TIMEOUT + 5)
    assert recovery.sweep_lost(sweeper, ctx()) == 0
    assert row(db, volume.id).status == 'deleting' and len(workers(db)) == 1


def test_a_lost_snapshot_create_ends_error_with_a_message(sweeper, db):
    volume = add_volume(db, status='available')
    snapshot = db_snapshots.create(db, values={
        'volume_id': volume.id, 'project_id': PROJECT, 'user_id': 'u1', 'volume_size': 1,
        'volume_type_id': volume.volume_type_id, 'progress': '0%'})
    _untaken(db, 'Snapshot', snapshot.id, 'creating', age=TIMEOUT + 5)
    assert recovery.sweep_lost(sweeper, ctx()) == 1
    assert db_snapshots.get(db, snapshot_id=snapshot.id).status == 'error'
    assert workers(db) == [] and event_ids(db) == ['VOLUME_VOLUME_SNAPSHOT_009_013']


def test_a_row_whose_operation_ended_is_just_removed(sweeper, db):
    volume = add_volume(db, status='available')
    _untaken(db, 'Volume', volume.id, 'creating', age=TIMEOUT + 5)
    assert recovery.sweep_lost(sweeper, ctx()) == 1
    assert row(db, volume.id).status == 'available' and workers(db) == []
    assert event_ids(db) == []


def test_startup_cleanup_of_an_interrupted_create_writes_a_message(manager, db):
    volume = add_volume(db, size=1)
    db_workers.begin(db, resource_type='Volume', resource_id=volume.id, status='creating',
                     service_id=manager.service_id)
    assert recovery.do_cleanup(manager, ctx(), recovery.own_request(manager)) == 1
    assert row(db, volume.id).status == 'error'
    assert event_ids(db) == ['VOLUME_VOLUME_008_001']


def test_the_sweeper_runs_as_a_periodic_of_the_volume_service(sweeper, db):
    volume = add_volume(db, host=None, claim=False)
    grow_claim(db, 0)
    _untaken(db, 'Volume', volume.id, 'creating', age=TIMEOUT + 5)
    sweeper._sweep_lost(ctx())
    assert row(db, volume.id).status == 'error'
