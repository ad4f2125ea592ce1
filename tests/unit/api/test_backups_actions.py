"""DELETE /backups/{id}, restore, export/import records, os-reset_status, os-force_delete:
what each casts, Cinder's refusals, and that a refusal writes nothing."""

import base64
import json

import pytest

from cinderlike.db import backups as db_backups
from cinderlike.db import volumes as db_volumes
from tests.unit.api.backup_fixtures import (
    action,
    add_backup,
    backup_rows,
    backup_usage,
)
from tests.unit.api.type_fixtures import admin, user
from tests.unit.api.volume_fixtures import add_volume, fault

MISSING = '9b1d3e2c-2d4a-4c39-8a42-7d3f9f0e1a11'


def _delete(client, backup_id, headers=None):
    return client.simulate_delete(f'/v3/backups/{backup_id}', headers=headers or admin())


def _restore(client, backup_id, body):
    return client.simulate_post(f'/v3/backups/{backup_id}/restore', json=body,
                                headers=admin())


@pytest.mark.parametrize('status', ['available', 'error'])
def test_delete_moves_to_deleting_and_casts_to_a_live_backup_service(bclient, db, brpc,
                                                                     status):
    backup = add_backup(db, add_volume(db), status=status, host='gone')
    assert _delete(bclient, backup.id).status_code == 202
    row = db_backups.get(db, backup_id=backup.id)
    assert (row.status, row.host) == ('deleting', 'bk1')
    assert brpc.backup.calls == [('delete_backup', {'backup_id': backup.id, 'host': 'bk1'})]


@pytest.mark.parametrize('status', ['creating', 'restoring', 'deleting'])
def test_delete_needs_available_or_error(bclient, db, brpc, status):
    backup = add_backup(db, add_volume(db), status=status)
    assert fault(_delete(bclient, backup.id)) == (
        400, 'Invalid backup: Backup status must be available or error')
    assert db_backups.get(db, backup_id=backup.id).status == status
    assert brpc.backup.calls == []


def test_a_backup_with_incremental_children_is_not_deleted(bclient, db, brpc):
    volume = add_volume(db)
    full = add_backup(db, volume)
    add_backup(db, volume, parent_id=full.id)
    assert fault(_delete(bclient, full.id)) == (
        400, 'Invalid backup: Incremental backups exist for this backup.')
    assert fault(action(bclient, full.id, {'os-force_delete': {}})) == (
        400, 'Invalid backup: Incremental backups exist for this backup.')
    assert db_backups.get(db, backup_id=full.id).status == 'available'


def test_force_delete_asks_the_driver_and_takes_any_status(bclient, db, brpc):
    backup = add_backup(db, add_volume(db), status='creating')
    brpc.backup.force_delete = False
    resp = action(bclient, backup.id, {'os-force_delete': {}})
    assert resp.json == {'badMethod': {'message': 'Operation not supported: force delete.',
                                       'code': 405}}
    assert db_backups.get(db, backup_id=backup.id).status == 'creating'
    brpc.backup.force_delete = True
    assert action(bclient, backup.id, {'os-force_delete': {}}).status_code == 202
    assert db_backups.get(db, backup_id=backup.id).status == 'deleting'


def test_no_backup_service_is_404(conf, seeded, brpc):
    from falcon import testing

    from cinderlike.api.app import create_app
    client = testing.TestClient(create_app(conf, db=seeded, rpc=brpc))
    backup = add_backup(seeded, add_volume(seeded))
    assert fault(_delete(client, backup.id)) == (404, 'Service cinder-backup could not be '
                                                      'found.')
    assert db_backups.get(seeded, backup_id=backup.id).status == 'available'


def test_restore_into_an_existing_volume(bclient, db, brpc):
    backup = add_backup(db, add_volume(db, size=2))
    target = add_volume(db, size=3, display_name='t')
    resp = _restore(bclient, backup.id, {'restore': {'volume_id': target.id}})
    assert resp.status_code == 202
    assert resp.json == {'restore': {'backup_id': backup.id, 'volume_id': target.id,
                                     'volume_name': 't'}}
    row = db_backups.get(db, backup_id=backup.id)
    assert (row.status, row.restore_volume_id) == ('restoring', target.id)
    assert db_volumes.get(db, volume_id=target.id).status == 'restoring-backup'
    assert brpc.backup.calls == [('restore_backup', {
        'backup_id': backup.id, 'volume_id': target.id, 'volume_is_new': False,
        'host': 'bk1'})]


@pytest.mark.parametrize('setup, message', [
    (dict(size=1), 'Invalid volume: volume size 1 is too small to restore backup of size 2.'),
    (dict(size=2, status='in-use'),
     'Invalid volume: Volume to be restored to must be available'),
])
def test_restore_refusals_on_the_volume(bclient, db, brpc, setup, message):
    backup = add_backup(db, add_volume(db, size=2))
    target = add_volume(db, **setup)
    assert fault(_restore(bclient, backup.id, {'restore': {'volume_id': target.id}})) == (
        400, message)
    assert db_backups.get(db, backup_id=backup.id).status == 'available'
    assert db_volumes.get(db, volume_id=target.id).status == setup.get('status', 'available')
    assert brpc.backup.calls == []


def test_restore_refusals_on_the_backup(bclient, db, brpc):
    busy = add_backup(db, add_volume(db), status='creating')
    target = add_volume(db)
    assert fault(_restore(bclient, busy.id, {'restore': {'volume_id': target.id}})) == (
        400, 'Invalid backup: Backup status must be available')
    assert fault(_restore(bclient, MISSING, {'restore': {'volume_id': target.id}})) == (
        404, f'Backup {MISSING} could not be found.')
    backup = add_backup(db, add_volume(db))
    assert fault(_restore(bclient, backup.id, {'restore': {'volume_id': MISSING}})) == (
        404, f'Volume {MISSING} could not be found.')
    assert fault(_restore(bclient, backup.id, {'restore': {'size': 1}}))[0] == 400
    assert db_volumes.get(db, volume_id=target.id).status == 'available'
    assert brpc.backup.calls == []


def test_export_record_is_admin_and_needs_available(bclient, bkclient, db, brpc):
    backup = add_backup(db, add_volume(db))
    resp = bclient.simulate_get(f'/v3/backups/{backup.id}/export_record', headers=admin())
    assert resp.status_code == 200
    assert resp.json == {'backup-record': brpc.backup.record}
    assert brpc.backup.calls == [('export_record', {'backup_id': backup.id, 'host': 'bk1'})]
    busy = add_backup(db, add_volume(db), status='error')
    resp = bclient.simulate_get(f'/v3/backups/{busy.id}/export_record', headers=admin())
    assert fault(resp) == (400, 'Invalid backup: Backup status must be available and not '
                                'error.')


def _url(record) -> str:
    return base64.b64encode(json.dumps(record).encode()).decode()


def test_import_record_creates_the_row_and_casts(bclient, db, brpc):
    backup_id = '5c1f3b0e-1d0e-4b6a-9a58-1f0f9f8e7d6c'
    body = {'backup-record': {'backup_service': 'posix',
                              'backup_url': _url({'id': backup_id, 'size': 4})}}
    resp = bclient.simulate_post('/v3/backups/import_record', json=body, headers=admin())
    assert resp.status_code == 201
    assert resp.json['backup']['id'] == backup_id
    row = db_backups.get(db, backup_id=backup_id)
    assert (row.status, row.size, row.volume_id) == (
        'creating', 4, '00000000-0000-0000-0000-000000000000')
    assert backup_usage(db) == {'backups': (1, 0), 'backup_gigabytes': (4, 0)}
    assert brpc.backup.calls == [('import_record', {
        'backup_id': backup_id, 'backup_service': 'posix',
        'backup_url': body['backup-record']['backup_url'], 'backup_hosts': [],
        'host': 'bk1'})]
    resp = bclient.simulate_post('/v3/backups/import_record', json=body, headers=admin())
    assert fault(resp) == (400, 'Invalid backup: Backup already exists in database.')
    assert backup_usage(db) == {'backups': (1, 0), 'backup_gigabytes': (4, 0)}


@pytest.mark.parametrize('url, message', [
    (_url({'size': 1}), 'Invalid input received: Provided backup record is missing an id'),
    (_url({'id': MISSING}),
     'Invalid input received: Provided backup record is missing size attribute'),
    ('abc', "Invalid input for field/attribute backup_url. Value: abc. 'abc' is not a "
            "'base64'"),
    (base64.b64encode(b'[1]').decode(), "Invalid input received: Can't parse backup record."),
])
def test_import_record_refusals_write_nothing(bclient, db, url, message):
    body = {'backup-record': {'backup_service': 'posix', 'backup_url': url}}
    resp = bclient.simulate_post('/v3/backups/import_record', json=body, headers=admin())
    assert fault(resp) == (400, message)
    assert backup_rows(db) == []


def test_import_without_a_backup_service_is_503(conf, seeded, brpc):
    from falcon import testing

    from cinderlike.api.app import create_app
    client = testing.TestClient(create_app(conf, db=seeded, rpc=brpc))
    body = {'backup-record': {'backup_service': 'posix',
                              'backup_url': _url({'id': MISSING, 'size': 1})}}
    resp = client.simulate_post('/v3/backups/import_record', json=body, headers=admin())
    assert resp.status_code == 503
    assert resp.json == {'serviceUnavailable': {
        'message': 'Service posix could not be found.', 'code': 503}}
    assert backup_rows(seeded) == []


def test_reset_status_is_cast_to_the_backup_service(bclient, db, brpc):
    backup = add_backup(db, add_volume(db), status='creating')
    resp = action(bclient, backup.id, {'os-reset_status': {'status': 'ERROR'}})
    assert resp.status_code == 202
    assert brpc.backup.calls == [('reset_status', {'backup_id': backup.id, 'status': 'error',
                                                   'host': 'bk1'})]
    resp = action(bclient, backup.id, {'os-reset_status': {'status': 'deleting'}})
    assert fault(resp) == (400, "Backup status: deleting is invalid, valid statuses are: "
                                "['available', 'error'].")
    assert fault(action(bclient, backup.id, {'os-nope': {}})) == (
        400, 'There is no such action: os-nope. Verify the request body and Content-Type header '
        'and try again.')


def test_admin_actions_and_records_are_for_admins(bkclient, db, brpc):
    from tests.unit.api.type_fixtures import PROJECT
    backup = add_backup(db, add_volume(db, project=PROJECT))
    for resp in (action(bkclient, backup.id, {'os-reset_status': {'status': 'error'}},
                        headers=user()),
                 action(bkclient, backup.id, {'os-force_delete': {}}, headers=user()),
                 bkclient.simulate_get(f'/v3/backups/{backup.id}/export_record',
                                       headers=user())):
        assert fault(resp)[0] == 403
    assert brpc.backup.calls == []
    assert _delete(bkclient, backup.id, headers=user()).status_code == 202


def _post_volume(client, body, version='3.47'):
    return client.simulate_post('/v3/volumes', json={'volume': body}, headers=admin(version))


def test_volume_from_a_backup_takes_its_size_and_tells_the_scheduler(bclient, db, brpc):
    backup = add_backup(db, add_volume(db, size=2))
    resp = _post_volume(bclient, {'backup_id': backup.id})
    assert resp.status_code == 202
    assert resp.json['volume']['size'] == 2
    (method, kwargs), = brpc.scheduler.calls
    assert (method, kwargs['request_spec']['backup_id']) == ('create_volume', backup.id)
    # The backup stays available until the volume service hands it to a backup host.
    assert db_backups.get(db, backup_id=backup.id).status == 'available'


def test_volume_from_a_backup_refusals_write_nothing(bclient, db, brpc):
    backup = add_backup(db, add_volume(db, size=2))
    busy = add_backup(db, add_volume(db), status='creating')
    before = len(db_volumes.get_all(db, project_id=None))
    assert fault(_post_volume(bclient, {'backup_id': MISSING})) == (
        404, f'Backup {MISSING} could not be found.')
    assert fault(_post_volume(bclient, {'backup_id': busy.id})) == (
        400, "Invalid backup: Originating backup status must be one of 'available' values")
    assert fault(_post_volume(bclient, {'backup_id': backup.id, 'size': 1})) == (
        400, 'Invalid input received: Volume size 1GB cannot be smaller than the backup '
             'size 2GB. It must be >= backup size.')
    assert len(db_volumes.get_all(db, project_id=None)) == before
    assert brpc.scheduler.calls == []


def test_backup_id_is_ignored_before_3_47(bclient, db, brpc):
    backup = add_backup(db, add_volume(db, size=2))
    resp = _post_volume(bclient, {'backup_id': backup.id, 'size': 1}, version='3.46')
    assert resp.status_code == 202
    assert brpc.scheduler.calls[0][1]['request_spec']['backup_id'] is None


def test_restore_to_a_new_volume_creates_it_from_the_backup(bclient, db, brpc):
    backup = add_backup(db, add_volume(db, size=2))
    resp = _restore(bclient, backup.id, {'restore': {}})
    assert resp.status_code == 202
    shown = resp.json['restore']
    assert (shown['backup_id'], shown['volume_name']) == (backup.id,
                                                          f'restore_backup_{backup.id}')
    volume = db_volumes.get(db, volume_id=shown['volume_id'])
    assert (volume.size, volume.display_description) == (
        2, 'auto-created_from_restore_from_backup')
    assert brpc.scheduler.calls[0][1]['request_spec']['backup_id'] == backup.id
    named = _restore(bclient, backup.id, {'restore': {'name': 'mine'}})
    assert named.json['restore']['volume_name'] == 'mine'


@pytest.mark.parametrize('status', ['backing-up', 'restoring-backup'])
def test_a_volume_being_backed_up_or_restored_is_not_deleted(bclient, db, status):
    volume = add_volume(db, status=status)
    resp = bclient.simulate_delete(f'/v3/volumes/{volume.id}', headers=admin())
    code, message = fault(resp)
    assert code == 400 and message.startswith('Invalid volume: Volume status must be '
                                              'available or error')
    assert db_volumes.get(db, volume_id=volume.id).status == status


@pytest.mark.parametrize('body, answer', [
    ({'os-force_delete': {}, 'os-reset_status': {'status': 'error'}},
     (400, 'Malformed request body')),
    ([], (400, 'Malformed request body')),
    # No body: Cinder peeks no action out of it; a JSON null is no object (404).
    (None, (400, 'There is no such action: None. Verify the request body and Content-Type '
                 'header and try again.')),
])
def test_bad_action_bodies_write_nothing(bclient, db, brpc, body, answer):
    backup = add_backup(db, add_volume(db), status='error')
    assert fault(action(bclient, backup.id, body)) == answer
    resp = bclient.simulate_post(f'/v3/backups/{backup.id}/action', body='null',
                                 headers=admin())
    assert resp.status_code == 404
    assert db_backups.get(db, backup_id=backup.id).status == 'error'
    assert brpc.backup.calls == []
