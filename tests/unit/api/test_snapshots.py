"""GET, PUT, DELETE /snapshots/{id}: views per microversion, extended attributes, refusals."""

import pytest
from falcon import testing
from oslo_messaging.notify import _impl_test
from oslo_policy import policy

from cinderlike.api.app import create_app
from cinderlike.db import snapshots as db_snapshots
from tests.unit.api.snapshot_fixtures import add_snapshot, fault, snapshot_rows
from tests.unit.api.test_snapshots_create import BASE_FIELDS, MISSING
from tests.unit.api.type_fixtures import PROJECT, admin, user
from tests.unit.api.volume_fixtures import add_volume

DELETE_REFUSED = ('Invalid snapshot: Snapshot status must be available or error and must not be '
                  'part of a group.')
EXTENDED = {'os-extended-snapshot-attributes:progress',
            'os-extended-snapshot-attributes:project_id'}


def _show(client, snapshot_id, headers=None, version=None):
    return client.simulate_get(f'/v3/snapshots/{snapshot_id}', headers=headers or admin(version))


@pytest.mark.parametrize('version, added', [
    ('3.0', set()), ('3.13', set()), ('3.14', {'group_snapshot_id'}),
    ('3.41', {'group_snapshot_id', 'user_id'}),
    ('3.65', {'group_snapshot_id', 'user_id', 'consumes_quota'}),
    ('3.71', {'group_snapshot_id', 'user_id', 'consumes_quota'}),
])
def test_show_fields_by_microversion(vclient, db, version, added):
    volume = add_volume(db)
    snapshot = add_snapshot(db, volume, metadata={'a': 'b'}, display_name='n')
    shown = _show(vclient, snapshot.id, version=version).json['snapshot']
    assert set(shown) == BASE_FIELDS | EXTENDED | added
    assert (shown['os-extended-snapshot-attributes:progress'],
            shown['os-extended-snapshot-attributes:project_id']) == ('100%', 'admin')
    assert (shown['metadata'], shown['name'], shown['size']) == ({'a': 'b'}, 'n', 1)
    assert shown.get('user_id', 'u1') == 'u1' and shown.get('consumes_quota', True) is True


def test_show_also_works_under_the_project_path(vclient, db):
    snapshot = add_snapshot(db, add_volume(db))
    resp = vclient.simulate_get(f'/v3/admin/snapshots/{snapshot.id}', headers=admin())
    assert resp.json['snapshot']['id'] == snapshot.id


def test_readers_see_the_extended_attributes_of_their_project(kclient, db):
    snapshot = add_snapshot(db, add_volume(db, project=PROJECT))
    shown = _show(kclient, snapshot.id, headers=user('reader')).json['snapshot']
    assert shown['os-extended-snapshot-attributes:project_id'] == PROJECT


def test_the_extended_attributes_follow_their_policy(conf, seeded, db, tmp_path):
    policy_file = tmp_path / 'policy.yaml'
    policy_file.write_text('"volume_extension:extended_snapshot_attributes": "!"\n')
    policy.Enforcer(conf)  # registers [oslo_policy] on this conf
    conf.set_override('policy_file', str(policy_file), group='oslo_policy')
    conf.set_override('auth_strategy', 'keystone')
    client = testing.TestClient(create_app(conf, db=seeded, use_auth_token=False))
    snapshot = add_snapshot(db, add_volume(db, project=PROJECT))
    assert set(_show(client, snapshot.id, headers=user()).json['snapshot']) == BASE_FIELDS
    resp = client.simulate_get('/v3/snapshots/detail', headers=user())
    assert set(resp.json['snapshots'][0]) == BASE_FIELDS


def test_unknown_and_other_projects_snapshots_are_404(kclient, db):
    other = add_snapshot(db, add_volume(db, project='someone-else'))
    for snapshot_id in (MISSING, other.id, 'not-a-uuid'):
        assert fault(_show(kclient, snapshot_id, headers=user())) == (
            404, f'Snapshot {snapshot_id} could not be found.')


def test_a_deleted_snapshot_is_404(vclient, db):
    snapshot = add_snapshot(db, add_volume(db))
    db_snapshots.MACHINE.destroy(db, row_id=snapshot.id)
    assert _show(vclient, snapshot.id).status_code == 404


def test_users_without_a_role_may_not_show(kclient, db):
    snapshot = add_snapshot(db, add_volume(db, project=PROJECT))
    assert fault(_show(kclient, snapshot.id, headers=user(''))) == (
        403, "Policy doesn't allow volume:get_snapshot to be performed.")


# --- update -------------------------------------------------------------------

def _put(client, snapshot_id, body, headers=None, version=None):
    return client.simulate_put(f'/v3/snapshots/{snapshot_id}', json=body,
                               headers=headers or admin(version))


@pytest.mark.parametrize('changes, name, description', [
    ({'name': ' new '}, 'new', 'old-d'),
    ({'display_name': 'dn'}, 'dn', 'old-d'),
    ({'description': 'd2'}, 'old', 'd2'),
    ({'display_description': 'dd'}, 'old', 'dd'),
    ({'name': 'n', 'display_name': 'dn', 'description': None}, 'n', None),
])
def test_update_name_and_description(vclient, db, changes, name, description):
    snapshot = add_snapshot(db, add_volume(db), display_name='old', display_description='old-d')
    resp = _put(vclient, snapshot.id, {'snapshot': changes}, version='3.41')
    assert resp.status_code == 200
    shown = resp.json['snapshot']
    # Update answers without the extended attributes (only show and detail have them).
    assert set(shown) == BASE_FIELDS | {'group_snapshot_id', 'user_id'}
    assert (shown['name'], shown['description']) == (name, description)
    row = db_snapshots.get(db, snapshot_id=snapshot.id)
    assert (row.display_name, row.display_description) == (name, description)


def test_update_works_in_any_status(vclient, db):
    snapshot = add_snapshot(db, add_volume(db), status='error_deleting')
    assert _put(vclient, snapshot.id, {'snapshot': {'name': 'x'}}).status_code == 200


@pytest.mark.parametrize('body, message', [
    (None, "None is not of type 'object'"),
    ({}, "'snapshot' is a required property"),
    ({'snapshot': {}}, 'Invalid input for field/attribute snapshot. Value: {}. {} is not valid '
                       'under any of the given schemas'),
    ({'snapshot': {'name': 'x', 'status': 'error'}},
     "Invalid input for field/attribute snapshot. Value: {'name': 'x', 'status': 'error'}. "
     "Additional properties are not allowed ('status' was unexpected)"),
    ({'snapshot': {'description': 'd' * 256}},
     f"Invalid input for field/attribute description. Value: {'d' * 256}. '{'d' * 256}' is "
     'too long'),
    ({'snapshot': {'name': 5}}, "Invalid input for field/attribute name. Value: 5. 5 is not "
                                "of type 'string', 'null'"),
])
def test_bad_update_bodies_are_400_and_change_nothing(vclient, db, body, message):
    snapshot = add_snapshot(db, add_volume(db), display_name='old')
    assert fault(_put(vclient, snapshot.id, body)) == (400, message)
    assert db_snapshots.get(db, snapshot_id=snapshot.id).display_name == 'old'


def test_update_of_an_unknown_snapshot_is_404(vclient, db):
    assert fault(_put(vclient, MISSING, {'snapshot': {'name': 'x'}})) == (
        404, f'Snapshot {MISSING} could not be found.')


def test_readers_may_not_update(kclient, db):
    snapshot = add_snapshot(db, add_volume(db, project=PROJECT), display_name='old')
    resp = _put(kclient, snapshot.id, {'snapshot': {'name': 'x'}}, headers=user('reader'))
    assert fault(resp) == (403, "Policy doesn't allow volume:update_snapshot to be performed.")
    assert db_snapshots.get(db, snapshot_id=snapshot.id).display_name == 'old'


# --- delete -------------------------------------------------------------------

def _delete(client, snapshot_id, headers=None):
    return client.simulate_delete(f'/v3/snapshots/{snapshot_id}', headers=headers or admin())


@pytest.mark.parametrize('status', ['available', 'error'])
def test_delete_moves_to_deleting_and_casts_to_the_volumes_backend(vclient, db, rpc, status):
    volume = add_volume(db, host='node@fake#pool', cluster_name='c@fake')
    snapshot = add_snapshot(db, volume, status=status)
    assert _delete(vclient, snapshot.id).status_code == 202
    assert db_snapshots.get(db, snapshot_id=snapshot.id).status == 'deleting'
    assert rpc.volume.calls == [('delete_snapshot', {
        'snapshot_id': snapshot.id, 'host': 'node@fake#pool', 'cluster_name': 'c@fake'})]


@pytest.mark.parametrize('status', ['creating', 'deleting', 'error_deleting', 'restoring',
                                    'backing-up'])
def test_delete_in_another_status_is_400_and_changes_nothing(vclient, db, rpc, status):
    snapshot = add_snapshot(db, add_volume(db), status=status)
    assert fault(_delete(vclient, snapshot.id)) == (400, DELETE_REFUSED)
    assert db_snapshots.get(db, snapshot_id=snapshot.id).status == status
    assert rpc.volume.calls == []


def test_delete_of_a_group_snapshot_member_is_400(vclient, db, rpc):
    snapshot = add_snapshot(db, add_volume(db), group_snapshot_id=MISSING)
    assert fault(_delete(vclient, snapshot.id)) == (400, DELETE_REFUSED)
    assert db_snapshots.get(db, snapshot_id=snapshot.id).status == 'available'
    assert rpc.volume.calls == []


def test_delete_of_an_unknown_snapshot_is_404(vclient, db, rpc):
    assert fault(_delete(vclient, MISSING)) == (404, f'Snapshot {MISSING} could not be found.')
    assert rpc.volume.calls == []


def test_readers_may_not_delete(kclient, db, rpc):
    snapshot = add_snapshot(db, add_volume(db, project=PROJECT))
    assert fault(_delete(kclient, snapshot.id, headers=user('reader'))) == (
        403, "Policy doesn't allow volume:delete_snapshot to be performed.")
    assert [s.status for s in snapshot_rows(db)] == ['available'] and rpc.volume.calls == []


def test_members_delete_their_projects_snapshots(kclient, db, rpc):
    snapshot = add_snapshot(db, add_volume(db, project=PROJECT))
    assert _delete(kclient, snapshot.id, headers=user()).status_code == 202
    assert [s.status for s in snapshot_rows(db)] == ['deleting']


# --- notifications -------------------------------------------------------------

def _notifying_client(conf, db):
    conf.set_override('driver', ['test'], group='oslo_messaging_notifications')
    _impl_test.reset()
    # NOTE(notifier): the app's notifiers take the conf's driver when the app is built.
    return testing.TestClient(create_app(conf, db=db))


def _sent():
    return [(m['publisher_id'], m['event_type'], m['payload'])
            for _ctxt, m, _prio, _retry in _impl_test.NOTIFICATIONS]


def test_update_sends_snapshot_update_start_and_end(conf, seeded):
    client = _notifying_client(conf, seeded)
    volume = add_volume(seeded, availability_zone='az1')
    snapshot = add_snapshot(seeded, volume, display_name='old', metadata={'k': 'v'})
    assert _put(client, snapshot.id, {'snapshot': {'name': 'new'}}).status_code == 200
    (pub1, start, before), (pub2, end, after) = _sent()
    assert (pub1, start, pub2, end) == (f'snapshot.{conf.host}', 'snapshot.update.start',
                                        f'snapshot.{conf.host}', 'snapshot.update.end')
    assert (before['display_name'], after['display_name']) == ('old', 'new')
    assert (after['snapshot_id'], after['volume_id'], after['availability_zone'],
            after['tenant_id'], after['status']) == (snapshot.id, volume.id, 'az1', 'admin',
                                                     'available')


def test_a_refused_update_sends_nothing(conf, seeded):
    client = _notifying_client(conf, seeded)
    assert _put(client, MISSING, {'snapshot': {'name': 'new'}}).status_code == 404
    assert _put(client, MISSING, {'snapshot': {}}).status_code == 400
    assert _sent() == []
