"""A cast the broker does not take: 503 with Cinder's body, and the request's writes undone
(row, status, quota, workers row); an undo that finds the operation taken up lets it stand."""

import oslo_messaging as messaging
import pytest
import sqlalchemy as sa
from falcon import testing

from cinderlike.api.app import create_app
from cinderlike.db import backups as db_backups
from cinderlike.db import snapshots as db_snapshots
from cinderlike.db import volumes as db_volumes
from cinderlike.db import workers as db_workers
from cinderlike.db.models import Reservation, Worker
from tests.unit.api.backup_fixtures import add_backup
from tests.unit.api.conftest import add_service
from tests.unit.api.snapshot_fixtures import add_snapshot, nothing_held, snapshot_rows
from tests.unit.api.volume_fixtures import (
    Recorder,
    RecordingRPC,
    action,
    add_volume,
    post,
    usages,
    volume_rows,
)

ADMIN = {'X-Auth-Token': 'admin:admin'}
UNAVAILABLE = {'serviceUnavailable': {
    'code': 503, 'message': 'Service is unavailable at this time: the message broker cannot '
                            'be reached; nothing was changed.'}}


class Unreachable(Recorder):
    """An rpcapi client whose sends fail as oslo.messaging's do when the broker is gone;
    *before(method, kwargs)* runs first (a service taking the work up meanwhile)."""

    def __init__(self, error=None, before=None):
        super().__init__()
        self.error = error or messaging.MessageDeliveryFailure('Unable to connect to AMQP')
        self.before = before

    def __getattr__(self, method):
        def cast(ctx, **kwargs):
            self.calls.append((method, kwargs))
            if self.before is not None:
                self.before(method, kwargs)
            raise self.error
        return cast


def _client(conf, db, **clients):
    return testing.TestClient(create_app(conf, db=db, rpc=RecordingRPC(**clients)))


def _workers(db) -> list[Worker]:
    with db.reader() as s:
        return list(s.scalars(sa.select(Worker)))


def _reservations(db) -> list[Reservation]:
    with db.reader() as s:
        return list(s.scalars(sa.select(Reservation).where(Reservation.deleted.is_(False))))


def _nothing_used(db) -> bool:
    return all(used == 0 and reserved == 0 for used, reserved in usages(db).values())


@pytest.mark.parametrize('error', [messaging.MessageDeliveryFailure('connection refused'),
                                   messaging.MessagingTimeout('no reply')])
def test_create_whose_cast_fails_is_503_and_leaves_no_row_quota_or_worker(conf, seeded, db,
                                                                          error):
    client = _client(conf, seeded, scheduler=Unreachable(error))
    resp = post(client, {'volume': {'size': 2, 'name': 'lost'}})
    assert (resp.status_code, resp.json) == (503, UNAVAILABLE)
    assert volume_rows(db) == [] and _workers(db) == [] and _nothing_used(db)


def test_create_writes_its_workers_row_with_no_service_before_the_cast(conf, seeded, db):
    seen = []

    def before(method, kwargs):
        seen.append(db_workers.get(db, resource_type='Volume', resource_id=kwargs['volume_id']))
    client = _client(conf, seeded, scheduler=Unreachable(before=before))
    post(client, {'volume': {'size': 1}})
    assert [(w.status, w.service_id) for w in seen] == [('creating', None)]


def test_create_taken_up_although_the_send_raised_stands(conf, seeded, db):
    """The message got through (a service took the workers row): 202, nothing undone."""
    service = add_service(db, host='node@fake')

    def before(method, kwargs):
        db_workers.begin(db, resource_type='Volume', resource_id=kwargs['volume_id'],
                         status='creating', service_id=service.id)
    client = _client(conf, seeded, scheduler=Unreachable(before=before))
    resp = post(client, {'volume': {'size': 1}})
    assert resp.status_code == 202
    assert [v.status for v in volume_rows(db)] == ['creating']
    assert [w.service_id for w in _workers(db)] == [service.id]


@pytest.mark.parametrize('status,force', [('available', False), ('error', False),
                                          ('error_extending', True)])
def test_delete_whose_cast_fails_restores_the_status(conf, seeded, db, status, force):
    volume = add_volume(db, status=status)
    client = _client(conf, seeded, volume=Unreachable())
    if force:
        resp = action(client, volume.id, {'os-force_delete': {}})
    else:
        resp = client.simulate_delete(f'/v3/volumes/{volume.id}',
                                      headers={'X-Auth-Token': 'admin:admin'})
    assert (resp.status_code, resp.json) == (503, UNAVAILABLE)
    row = db_volumes.get(db, volume_id=volume.id)
    assert (row.status, row.terminated_at) == (status, None)
    assert _workers(db) == []
    # A second DELETE is tried again (not refused 400 as a volume left `deleting` would be).
    again = client.simulate_delete(f'/v3/volumes/{volume.id}',
                                   headers={'X-Auth-Token': 'admin:admin'})
    assert again.status_code == 503


def test_cascade_delete_whose_cast_fails_restores_the_snapshots(conf, seeded, db):
    volume = add_volume(db)
    kept = [add_snapshot(db, volume, status=s).id for s in ('available', 'error')]
    client = _client(conf, seeded, volume=Unreachable())
    resp = client.simulate_delete(f'/v3/volumes/{volume.id}', params={'cascade': 'true'},
                                  headers={'X-Auth-Token': 'admin:admin'})
    assert (resp.status_code, resp.json) == (503, UNAVAILABLE)
    assert db_volumes.get(db, volume_id=volume.id).status == 'available'
    assert {s.id: s.status for s in snapshot_rows(db)} == dict(
        zip(kept, ('available', 'error'), strict=True))
    assert _workers(db) == []


@pytest.mark.parametrize('status,version', [('available', None), ('in-use', '3.42')])
def test_extend_whose_cast_fails_restores_status_and_rolls_back(conf, seeded, db, status,
                                                                version):
    volume = add_volume(db, status=status, size=1)
    client = _client(conf, seeded, scheduler=Unreachable())
    before = usages(db)
    resp = action(client, volume.id, {'os-extend': {'new_size': 3}}, version=version)
    assert (resp.status_code, resp.json) == (503, UNAVAILABLE)
    row = db_volumes.get(db, volume_id=volume.id)
    assert (row.status, row.size) == (status, 1)
    assert {k: v[1] for k, v in usages(db).items()} == {k: 0 for k in usages(db)}
    assert {k: v for k, v in usages(db).items() if k in before} == before
    assert _reservations(db) == [] and _workers(db) == []


def test_extend_writes_new_size_and_reservations_in_its_workers_row(conf, seeded, db):
    volume = add_volume(db, size=1)
    seen = []
    client = _client(conf, seeded, scheduler=Unreachable(before=lambda m, kw: seen.append(
        db_workers.get(db, resource_type='Volume', resource_id=volume.id))))
    action(client, volume.id, {'os-extend': {'new_size': 4}})
    (worker,) = seen
    assert (worker.status, worker.service_id, worker.request['new_size']) == (
        'extending', None, 4)
    assert len(worker.request['reservations']) == 2


def test_revert_whose_cast_fails_returns_volume_and_snapshot_available(conf, seeded, db):
    volume = add_volume(db)
    snapshot = add_snapshot(db, volume)
    client = _client(conf, seeded, volume=Unreachable())
    resp = action(client, volume.id, {'revert': {'snapshot_id': snapshot.id}}, version='3.40')
    assert (resp.status_code, resp.json) == (503, UNAVAILABLE)
    assert db_volumes.get(db, volume_id=volume.id).status == 'available'
    assert db_snapshots.get(db, snapshot_id=snapshot.id).status == 'available'


def test_snapshot_create_whose_cast_fails_leaves_no_row_quota_or_worker(conf, seeded, db):
    volume = add_volume(db, size=2)
    client = _client(conf, seeded, scheduler=Unreachable())
    resp = client.simulate_post('/v3/snapshots', json={'snapshot': {'volume_id': volume.id}},
                                headers={'X-Auth-Token': 'admin:admin'})
    assert (resp.status_code, resp.json) == (503, UNAVAILABLE)
    assert snapshot_rows(db) == [] and _workers(db) == [] and nothing_held(db)


@pytest.mark.parametrize('status', ['available', 'error'])
def test_snapshot_delete_whose_cast_fails_restores_its_status(conf, seeded, db, status):
    snapshot = add_snapshot(db, add_volume(db), status=status)
    client = _client(conf, seeded, volume=Unreachable())
    resp = client.simulate_delete(f'/v3/snapshots/{snapshot.id}',
                                  headers={'X-Auth-Token': 'admin:admin'})
    assert (resp.status_code, resp.json) == (503, UNAVAILABLE)
    assert db_snapshots.get(db, snapshot_id=snapshot.id).status == status
    assert _workers(db) == []


def test_a_cast_that_raises_something_else_is_undone_too_and_answers_500(conf, seeded, db):
    client = _client(conf, seeded, scheduler=Unreachable(RuntimeError('a bug')))
    resp = post(client, {'volume': {'size': 1}})
    assert resp.status_code == 500
    assert volume_rows(db) == [] and _workers(db) == [] and _nothing_used(db)


@pytest.mark.parametrize('status', ['available', 'error'])
def test_backup_delete_whose_cast_fails_restores_status_and_host(bclient, db, brpc, status):
    backup = add_backup(db, add_volume(db), status=status, host='gone')
    brpc.backup = Unreachable()
    resp = bclient.simulate_delete(f'/v3/backups/{backup.id}', headers=ADMIN)
    assert (resp.status_code, resp.json) == (503, UNAVAILABLE)
    row = db_backups.get(db, backup_id=backup.id)
    assert (row.status, row.host) == (status, 'gone')


def test_backup_restore_whose_cast_fails_returns_backup_and_volume_available(bclient, db,
                                                                            brpc):
    backup = add_backup(db, add_volume(db, size=1))
    target = add_volume(db, size=2)
    brpc.backup = Unreachable()
    resp = bclient.simulate_post(f'/v3/backups/{backup.id}/restore', headers=ADMIN,
                                 json={'restore': {'volume_id': target.id}})
    assert (resp.status_code, resp.json) == (503, UNAVAILABLE)
    assert db_backups.get(db, backup_id=backup.id).status == 'available'
    assert db_volumes.get(db, volume_id=target.id).status == 'available'
