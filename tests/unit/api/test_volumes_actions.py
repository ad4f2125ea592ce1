"""DELETE /volumes/{id}, PUT, metadata and the os-* actions: CAS refusals name the states."""

import pytest
from falcon import testing
from oslo_messaging.notify import _impl_test

from cinderlike.api.app import create_app
from cinderlike.db import volumes as db_volumes
from tests.unit.api.type_fixtures import admin, user
from tests.unit.api.volume_fixtures import action, add_volume, fault, usages, volume_rows

DELETE_REFUSED = ('Invalid volume: Volume status must be available or error or '
                  'error_restoring or error_extending or error_managing and must not be '
                  'migrating, attached, belong to a group, have snapshots, awaiting a '
                  'transfer, or be disassociated from snapshots after volume transfer.')


def _status(db, volume_id):
    return db_volumes.get(db, volume_id=volume_id).status


def test_delete_moves_to_deleting_and_casts_to_the_backend(vclient, db, rpc):
    volume = add_volume(db)
    assert vclient.simulate_delete(f'/v3/volumes/{volume.id}', headers=admin()).status_code == 202
    assert _status(db, volume.id) == 'deleting'
    assert rpc.volume.calls == [('delete_volume', {
        'volume_id': volume.id, 'host': 'node@fake#pool', 'cluster_name': None,
        'cascade': False})]


def test_delete_in_a_wrong_status_is_400_and_changes_nothing(vclient, db, rpc):
    volume = add_volume(db, status='in-use')
    resp = vclient.simulate_delete(f'/v3/volumes/{volume.id}', headers=admin())
    assert fault(resp) == (400, DELETE_REFUSED)
    assert _status(db, volume.id) == 'in-use' and rpc.volume.calls == []


def test_force_delete_from_3_23_ignores_status(vclient, db, rpc):
    volume = add_volume(db, status='in-use')
    resp = vclient.simulate_delete(f'/v3/volumes/{volume.id}', query_string='force=true',
                                   headers=admin('3.23'))
    assert resp.status_code == 202 and _status(db, volume.id) == 'deleting'


def test_unscheduled_volume_is_destroyed_here_and_quota_released(vclient, db, rpc):
    resp = vclient.simulate_post('/v3/volumes', json={'volume': {'size': 2}}, headers=admin())
    volume_id = resp.json['volume']['id']
    assert usages(db)['gigabytes'] == (2, 0)
    assert vclient.simulate_delete(f'/v3/volumes/{volume_id}', headers=admin()).status_code == 202
    assert volume_rows(db) == [] and rpc.volume.calls == []
    assert usages(db)['gigabytes'] == (0, 0) and usages(db)['volumes'] == (0, 0)


def test_extend_reserves_and_asks_the_scheduler(vclient, db, rpc):
    volume = add_volume(db, size=1)
    assert action(vclient, volume.id, {'os-extend': {'new_size': 3}}).status_code == 202
    row = db_volumes.get(db, volume_id=volume.id)
    assert (row.status, row.previous_status, row.size) == ('extending', 'available', 1)
    (method, kwargs), = rpc.scheduler.calls
    assert (method, kwargs['new_size'], kwargs['volume_id']) == ('extend_volume', 3, volume.id)
    # The existing 1G volume is counted in use; the 2G increase is reserved.
    assert usages(db)['gigabytes'] == (1, 2)


@pytest.mark.parametrize('status, version, code', [
    ('in-use', '3.41', 400), ('in-use', '3.42', 202), ('error', '3.42', 400)])
def test_extend_of_attached_volumes_from_3_42(vclient, db, status, version, code):
    volume = add_volume(db, status=status)
    resp = action(vclient, volume.id, {'os-extend': {'new_size': 2}}, version=version)
    assert resp.status_code == code
    if code == 400:
        assert f"to extend, currently {status}." in fault(resp)[1]
        assert _status(db, volume.id) == status


@pytest.mark.parametrize('body, message', [
    ({'os-extend': {'new_size': 1}}, 'Invalid input received: New size for extend must be '
                                      'greater than current size. (current: 1, extended: 1).'),
    ({'os-extend': {'new_size': 0}}, None),
    ({'os-extend': {'new_size': 'abc'}}, None),
    ({'os-extend': {}}, None),
    ({'os-nope': {}}, ('There is no such action: os-nope. Verify the request body and '
      'Content-Type header and try again.')),
])
def test_bad_extend_is_refused_and_writes_nothing(vclient, db, rpc, body, message):
    volume = add_volume(db)
    code, got = fault(action(vclient, volume.id, body))
    assert code == 400 and (message is None or got == message)
    assert _status(db, volume.id) == 'available' and rpc.scheduler.calls == []


def test_extend_over_quota_is_413_and_returns_the_status(vclient, db, conf, rpc):
    conf.set_override('quota_gigabytes', 2)
    conf.set_override('use_default_quota_class', False)
    volume = add_volume(db)
    resp = action(vclient, volume.id, {'os-extend': {'new_size': 5}})
    assert resp.status_code == 413
    assert _status(db, volume.id) == 'available' and rpc.scheduler.calls == []
    assert all(reserved == 0 for _used, reserved in usages(db).values())


def test_reset_status_is_admin_and_validated(vclient, kclient, db):
    volume = add_volume(db, status='error', project='b6a4e8d1c5f04e5ba1a1f1c0d8a6a001')
    assert action(vclient, volume.id, {'os-reset_status': {'status': 'available',
                                                           'migration_status': 'none'}}
                  ).status_code == 202
    assert _status(db, volume.id) == 'available'
    for body, message in (({'status': 'bogus'}, 'Must specify a valid status'),
                          ({}, "Must specify 'status', 'attach_status' or 'migration_status' "
                               'for update.'),
                          ({'status': 'in-use'}, 'Invalid volume: Cannot reset-state to '
                           'in-use because volume does not have any attachments.')):
        assert fault(action(vclient, volume.id, {'os-reset_status': body})) == (400, message)
    resp = action(kclient, volume.id, {'os-reset_status': {'status': 'error'}}, headers=user())
    assert fault(resp)[0] == 403
    assert _status(db, volume.id) == 'available'


def test_force_delete_action(vclient, db, rpc):
    volume = add_volume(db, status='extending')
    assert action(vclient, volume.id, {'os-force_delete': {}}).status_code == 202
    assert _status(db, volume.id) == 'deleting'


def test_set_bootable_and_readonly_flag(vclient, db):
    volume = add_volume(db)
    assert action(vclient, volume.id, {'os-set_bootable': {'bootable': 'true'}}
                  ).status_code == 200
    shown = vclient.simulate_get(f'/v3/volumes/{volume.id}', headers=admin()).json['volume']
    assert shown['bootable'] == 'true'
    assert action(vclient, volume.id, {'os-update_readonly_flag': {'readonly': True}}
                  ).status_code == 202
    assert db_volumes.get_metadata(db, volume_ids=[volume.id], admin=True)[volume.id] == {
        'readonly': 'True'}
    busy = add_volume(db, status='in-use')
    assert fault(action(vclient, busy.id, {'os-update_readonly_flag': {'readonly': True}})) == (
        400, f'Invalid volume: Volume {busy.id} status must be available to update readonly '
             'flag, but current status is: in-use.')


def test_update_name_and_metadata(vclient, db):
    volume = add_volume(db, display_name='old')
    resp = vclient.simulate_put(f'/v3/volumes/{volume.id}', headers=admin(),
                                json={'volume': {'name': 'new', 'metadata': {'a': '1'}}})
    assert resp.status_code == 200
    assert (resp.json['volume']['name'], resp.json['volume']['metadata']) == ('new', {'a': '1'})
    bad = vclient.simulate_put(f'/v3/volumes/{volume.id}', headers=admin(),
                               json={'volume': {'name': 'x' * 256}})
    assert fault(bad)[0] == 400
    assert db_volumes.get(db, volume_id=volume.id).display_name == 'new'


def test_metadata_endpoints(vclient, db):
    volume = add_volume(db)
    url = f'/v3/volumes/{volume.id}/metadata'
    assert vclient.simulate_post(url, json={'metadata': {'a': '1'}}, headers=admin()).json == {
        'metadata': {'a': '1'}}
    assert vclient.simulate_post(url, json={'metadata': {'b': '2'}}, headers=admin()).json == {
        'metadata': {'a': '1', 'b': '2'}}
    assert vclient.simulate_put(url, json={'metadata': {'c': '3'}}, headers=admin()).json == {
        'metadata': {'c': '3'}}
    assert vclient.simulate_get(f'{url}/c', headers=admin()).json == {'meta': {'c': '3'}}
    assert fault(vclient.simulate_put(f'{url}/c', json={'meta': {'d': '4'}},
                                      headers=admin())) == (400, 'Request body and URI mismatch')
    assert fault(vclient.simulate_put(f'{url}/c', json={'meta': {'c': '4', 'd': '5'}},
                                      headers=admin())) == (
        400, 'Request body contains too many items')
    assert vclient.simulate_delete(f'{url}/c', headers=admin()).status_code == 200
    assert fault(vclient.simulate_get(f'{url}/c', headers=admin())) == (
        404, f'Volume {volume.id} has no metadata with key c.')
    assert fault(vclient.simulate_post(url, json={'metadata': {'k': 'v' * 256}},
                                       headers=admin()))[0] == 400
    assert vclient.simulate_get(url, headers=admin()).json == {'metadata': {}}



def test_update_sends_volume_update_with_the_new_name(conf, seeded):
    db = seeded
    conf.set_override('driver', ['test'], group='oslo_messaging_notifications')
    _impl_test.reset()
    volume = add_volume(db, display_name='old')
    # NOTE(notifier): the app's notifier takes the conf's driver when the app is built.
    client = testing.TestClient(create_app(conf, db=db))
    assert client.simulate_put(f'/v3/volumes/{volume.id}', headers=admin(),
                               json={'volume': {'name': 'new'}}).status_code == 200
    [(_ctxt, message, _prio, _retry)] = _impl_test.NOTIFICATIONS
    assert message['event_type'] == 'volume.update'
    assert (message['payload']['volume_id'], message['payload']['display_name']) == (
        volume.id, 'new')
    assert action(client, volume.id, {'os-set_bootable': {'bootable': True}}).status_code == 200
    assert len(_impl_test.NOTIFICATIONS) == 1
