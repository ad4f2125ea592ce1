"""A cast the broker does not take: 503 with Cinder's body, and the request's writes undone
(row, status, quota, workers row); an undo that finds the operation taken up lets it stand."""

import base64
import json

import oslo_messaging as messaging
import pytest
import sqlalchemy as sa
from falcon import testing

from cinderlike import exception
from cinderlike.api import faults
from cinderlike.api.app import create_app
from cinderlike.db import attachments as db_attachments
from cinderlike.db import backups as db_backups
from cinderlike.db import migrations_status as db_migrations
from cinderlike.db import services as db_services
from cinderlike.db import snapshots as db_snapshots
from cinderlike.db import volume_types as db_types
from cinderlike.db import volumes as db_volumes
from cinderlike.db import workers as db_workers
from cinderlike.db.models import Reservation, Service, VolumeAttachment, Worker
from tests.unit.api.attachment_fixtures import CONNECTOR, INSTANCE, OTHER_INSTANCE
from tests.unit.api.attachment_fixtures import complete as attachment_complete
from tests.unit.api.attachment_fixtures import create as attachment_create
from tests.unit.api.attachment_fixtures import delete as attachment_delete
from tests.unit.api.backup_fixtures import add_backup
from tests.unit.api.backup_fixtures import nothing_held as backup_nothing_held
from tests.unit.api.conftest import add_service
from tests.unit.api.snapshot_fixtures import add_snapshot, nothing_held, snapshot_rows
from tests.unit.api.type_fixtures import admin
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
# A call that writes nothing before it is sent has nothing to undo: the broker's 503.
BROKER_DOWN = {'serviceUnavailable': {'code': 503, 'message': faults.BROKER_DOWN}}


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


# --- attachments: the volume service's calls ----------------------------------------

def _attachments(db) -> list[VolumeAttachment]:
    with db.reader() as s:
        return list(s.scalars(sa.select(VolumeAttachment).where(
            VolumeAttachment.deleted.is_(False))))


@pytest.mark.parametrize('error', [messaging.MessageDeliveryFailure('connection refused'),
                                   messaging.MessagingTimeout('no reply')])
def test_attachment_create_whose_connect_cannot_be_sent_leaves_no_reservation(
        aclient, seeded, mrpc, error):
    volume = add_volume(seeded, host='node@fake#fake')
    mrpc.volume = Unreachable(error)
    resp = attachment_create(aclient, volume.id, instance_uuid=INSTANCE, connector=CONNECTOR)
    assert (resp.status_code, resp.json) == (503, UNAVAILABLE)
    assert _attachments(seeded) == []
    row = db_volumes.get(seeded, volume_id=volume.id)
    assert (row.status, row.attach_status) == ('available', 'detached')


def test_attachment_create_taken_up_although_the_call_timed_out_is_detached_by_the_sweep(
        aclient, seeded, mrpc, manager):
    """The volume service began connecting (the row left `reserved`) and its answer was
    lost: the broker's 503, and the attachment nobody learned of is handed to the sweep as
    a forced detach (a workers row with no service), the connect fenced."""
    volume = add_volume(seeded, host='node@fake#fake')
    holds = []
    mrpc.volume = Unreachable(messaging.MessagingTimeout('no reply'), before=lambda m, kw: (
        holds.append(db_attachments.begin_connect(seeded, attachment_id=kw['attachment_id'],
                                                  service_id=None)[1])))
    resp = attachment_create(aclient, volume.id, instance_uuid=INSTANCE, connector=CONNECTOR)
    assert resp.status_code == 503 and resp.json != UNAVAILABLE
    (attachment,) = _attachments(seeded)
    assert attachment.attach_status == 'detaching'
    worker = db_workers.get(seeded, resource_type='Attachment', resource_id=attachment.id)
    assert (worker.status, worker.service_id, worker.request) == (
        'detaching', None, {'force': True})
    assert not db_attachments.connected(seeded, attachment_id=attachment.id, hold=holds[0],
                                        values={'connector': '{}'})


def test_a_second_attachment_of_a_multiattach_volume_undone_keeps_it_in_use(
        aclient, seeded, mrpc, manager):
    volume = add_volume(seeded, host='node@fake#fake', multiattach=True)
    first = attachment_create(aclient, volume.id, instance_uuid=INSTANCE,
                              connector=CONNECTOR).json['attachment']['id']
    attachment_complete(aclient, first)
    mrpc.volume = Unreachable()
    resp = attachment_create(aclient, volume.id, instance_uuid=OTHER_INSTANCE,
                             connector=dict(CONNECTOR, host='compute-2'))
    assert (resp.status_code, resp.json) == (503, UNAVAILABLE)
    assert [(a.id, a.attach_status) for a in _attachments(seeded)] == [(first, 'attached')]
    assert db_volumes.get(seeded, volume_id=volume.id).status == 'in-use'


def test_attachment_delete_whose_disconnect_cannot_be_sent_stays_attached(aclient, seeded,
                                                                          mrpc):
    volume = add_volume(seeded, host='node@fake#fake')
    attachment_id = attachment_create(aclient, volume.id, instance_uuid=INSTANCE,
                                      connector=CONNECTOR).json['attachment']['id']
    attachment_complete(aclient, attachment_id)
    manager_calls = mrpc.volume
    mrpc.volume = Unreachable()
    resp = attachment_delete(aclient, attachment_id)
    assert (resp.status_code, resp.json) == (503, UNAVAILABLE)
    assert [a.attach_status for a in _attachments(seeded)] == ['attached']
    assert db_volumes.get(seeded, volume_id=volume.id).status == 'in-use'
    # Once the broker is back the same DELETE goes through.
    mrpc.volume = manager_calls
    assert attachment_delete(aclient, attachment_id).status_code == 200
    assert db_volumes.get(seeded, volume_id=volume.id).status == 'available'


def test_legacy_attach_whose_call_cannot_be_sent_leaves_no_readonly_flag(conf, seeded, db):
    volume = add_volume(db, status='attaching')
    client = _client(conf, seeded, volume=Unreachable())
    resp = action(client, volume.id, {'os-attach': {'instance_uuid': INSTANCE,
                                                    'mountpoint': '/dev/vdb'}})
    assert (resp.status_code, resp.json) == (503, UNAVAILABLE)
    assert db_volumes.get_metadata(db, volume_ids=[volume.id], admin=True)[volume.id] == {}
    assert _attachments(db) == []


def test_legacy_detach_whose_call_cannot_be_sent_changes_nothing(conf, seeded, db):
    volume = add_volume(db, status='in-use')
    client = _client(conf, seeded, volume=Unreachable())
    resp = action(client, volume.id, {'os-detach': {}})
    assert (resp.status_code, resp.json) == (503, BROKER_DOWN)
    assert db_volumes.get(db, volume_id=volume.id).status == 'in-use'


# --- retype and migrate ------------------------------------------------------------------

def test_retype_whose_cast_fails_restores_type_status_and_quota(conf, seeded, db):
    gold = db_types.create(db, name='gold', extra_specs={'multiattach': '<is> True'})
    volume = add_volume(db, size=2)
    client = _client(conf, seeded, scheduler=Unreachable())
    resp = action(client, volume.id, {'os-retype': {'new_type': gold.id}})
    assert (resp.status_code, resp.json) == (503, UNAVAILABLE)
    row = db_volumes.get(db, volume_id=volume.id)
    assert (row.status, row.volume_type_id, row.multiattach) == (
        'available', volume.volume_type_id, False)
    # Nothing reserved; the volume still counts under its own type, none under gold.
    assert {k: v[1] for k, v in usages(db).items()} == {k: 0 for k in usages(db)}
    assert usages(db)['volumes_gold'][0] == 0 and usages(db)['volumes___DEFAULT__'] == (1, 0)
    assert _reservations(db) == []


def test_retype_taken_up_although_the_send_raised_stands(conf, seeded, db):
    """The volume service began the retype's migration: its quota and status stand."""
    db_types.create(db, name='gold')
    add_service(db, host='node@b2')
    volume = add_volume(db, size=2)

    def before(method, kwargs):
        db_migrations.begin(db, volume_id=volume.id, host='node@b2#b2', cluster_name=None,
                            retype=True)
    client = _client(conf, seeded, scheduler=Unreachable(before=before))
    assert action(client, volume.id, {'os-retype': {'new_type': 'gold'}}).status_code == 202
    row = db_volumes.get(db, volume_id=volume.id)
    assert (row.status, row.migration_status) == ('retyping', 'starting')
    assert len(_reservations(db)) == 4


@pytest.mark.parametrize('status,lock', [('available', True), ('in-use', False)])
def test_migrate_whose_cast_fails_restores_status_and_migration_status(conf, seeded, db,
                                                                       status, lock):
    add_service(db, host='node@b2')
    volume = add_volume(db, status=status, migration_status='success')
    client = _client(conf, seeded, scheduler=Unreachable())
    resp = action(client, volume.id, {'os-migrate_volume': {'host': 'node@b2#b2',
                                                            'lock_volume': lock}})
    assert (resp.status_code, resp.json) == (503, UNAVAILABLE)
    row = db_volumes.get(db, volume_id=volume.id)
    assert (row.status, row.migration_status) == (status, 'success')


def test_migrate_completion_whose_call_cannot_be_sent_changes_nothing(conf, seeded, db):
    source = add_volume(db, migration_status='migrating')
    target = add_volume(db, status='creating', migration_status=f'target:{source.id}')
    client = _client(conf, seeded, volume=Unreachable())
    resp = action(client, source.id, {'os-migrate_volume_completion': {
        'new_volume': target.id}})
    assert (resp.status_code, resp.json) == (503, BROKER_DOWN)
    assert db_volumes.get(db, volume_id=source.id).migration_status == 'migrating'
    assert db_volumes.get(db, volume_id=target.id).migration_status == f'target:{source.id}'


# --- manage and unmanage -----------------------------------------------------------------

def test_manage_whose_cast_fails_leaves_no_row(conf, seeded, db):
    add_service(db, host='node@file')
    client = _client(conf, seeded, scheduler=Unreachable())
    resp = client.simulate_post('/v3/manageable_volumes', headers=admin('3.8'), json={
        'volume': {'host': 'node@file', 'ref': {'source-name': 'legacy.img'}}})
    assert (resp.status_code, resp.json) == (503, UNAVAILABLE)
    assert volume_rows(db) == [] and _nothing_used(db)


def test_unmanage_whose_cast_fails_restores_the_status(conf, seeded, db):
    volume = add_volume(db, status='error')
    client = _client(conf, seeded, volume=Unreachable())
    resp = action(client, volume.id, {'os-unmanage': {}})
    assert (resp.status_code, resp.json) == (503, UNAVAILABLE)
    row = db_volumes.get(db, volume_id=volume.id)
    assert (row.status, row.terminated_at) == ('error', None)


def test_snapshot_manage_whose_cast_fails_leaves_no_row_or_quota(conf, seeded, db):
    add_service(db, host='node@file')
    volume = add_volume(db, host='node@file#pool', size=3)
    client = _client(conf, seeded, scheduler=Unreachable())
    resp = client.simulate_post('/v3/manageable_snapshots', headers=admin('3.8'), json={
        'snapshot': {'volume_id': volume.id, 'ref': {'source-name': 'snapshot-old'}}})
    assert (resp.status_code, resp.json) == (503, UNAVAILABLE)
    assert snapshot_rows(db) == [] and nothing_held(db)


@pytest.mark.parametrize('status', ['available', 'error'])
def test_snapshot_unmanage_whose_cast_fails_restores_the_status(conf, seeded, db, status):
    snapshot = add_snapshot(db, add_volume(db), status=status)
    client = _client(conf, seeded, volume=Unreachable())
    resp = client.simulate_post(f'/v3/snapshots/{snapshot.id}/action', headers=ADMIN,
                                json={'os-unmanage': {}})
    assert (resp.status_code, resp.json) == (503, UNAVAILABLE)
    assert db_snapshots.get(db, snapshot_id=snapshot.id).status == status


# --- backup import, freeze and thaw ------------------------------------------------------

def test_backup_import_whose_cast_fails_leaves_no_row_or_quota(bclient, db, brpc):
    backup_id = '5c1f3b0e-1d0e-4b6a-9a58-1f0f9f8e7d6c'
    record = base64.b64encode(json.dumps({'id': backup_id, 'size': 4}).encode()).decode()
    brpc.backup = Unreachable()
    resp = bclient.simulate_post('/v3/backups/import_record', headers=ADMIN, json={
        'backup-record': {'backup_service': 'posix', 'backup_url': record}})
    assert (resp.status_code, resp.json) == (503, UNAVAILABLE)
    with pytest.raises(exception.BackupNotFound):
        db_backups.get(db, backup_id=backup_id)
    assert backup_nothing_held(db) and _reservations(db) == []


@pytest.mark.parametrize('action_name,frozen', [('freeze', False), ('thaw', True)])
def test_freeze_or_thaw_whose_call_cannot_be_sent_restores_frozen(conf, seeded, db,
                                                                  action_name, frozen):
    row = add_service(db, host='node1@lvm')
    with db.writer() as s:
        s.execute(sa.update(Service).where(Service.id == row.id).values(frozen=frozen))
    client = _client(conf, seeded, volume=Unreachable())
    resp = client.simulate_put(f'/v3/os-services/{action_name}', json={'host': 'node1@lvm'},
                               headers=admin('3.32'))
    assert (resp.status_code, resp.json) == (503, UNAVAILABLE)
    assert db_services.get(db, row.id).frozen is frozen


def test_failover_whose_cast_fails_restores_the_replication_status(conf, seeded, db):
    row = add_service(db, host='node1@lvm')
    with db.writer() as s:
        s.execute(sa.update(Service).where(Service.id == row.id).values(
            replication_status='failed-over'))
    beat = db_services.get(db, row.id).updated_at
    client = _client(conf, seeded, volume=Unreachable())
    resp = client.simulate_put('/v3/os-services/failover_host', json={'host': 'node1@lvm'},
                               headers=admin('3.0'))
    assert (resp.status_code, resp.json) == (503, UNAVAILABLE)
    after = db_services.get(db, row.id)
    assert (after.replication_status, after.updated_at) == ('failed-over', beat)
