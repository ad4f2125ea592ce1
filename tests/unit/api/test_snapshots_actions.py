"""POST /snapshots/{id}/action (reset, update status, force delete) and the volume action revert."""

import pytest
from falcon import testing
from oslo_messaging.notify import _impl_test

from cinderlike.api.app import create_app
from cinderlike.db import snapshots as db_snapshots
from cinderlike.db import volumes as db_volumes
from tests.unit.api.snapshot_fixtures import action, add_snapshot, fault
from tests.unit.api.test_snapshots_create import MISSING
from tests.unit.api.type_fixtures import PROJECT, admin, user
from tests.unit.api.volume_fixtures import action as volume_action
from tests.unit.api.volume_fixtures import add_volume

_STATUSES = ("('error', 'available', 'creating', 'deleting', 'deleted', 'updating', "
             "'error_deleting', 'unmanaging', 'backing-up', 'restoring')")


def _status(db, snapshot_id):
    return db_snapshots.get(db, snapshot_id=snapshot_id).status


@pytest.fixture
def snapshot(db):
    return add_snapshot(db, add_volume(db, project=PROJECT), status='creating')


# --- dispatch -----------------------------------------------------------------

@pytest.mark.parametrize('body, message', [
    ({'os-foo': {}}, ('There is no such action: os-foo. Verify the request body and '
      'Content-Type header and try again.')),
    ({'os-force_delete': {}, 'os-reset_status': {'status': 'error'}}, 'Malformed request body'),
    ([], 'Malformed request body'),
    # No body at all: Cinder peeks no action out of it.
    (None, ('There is no such action: None. Verify the request body and Content-Type header '
            'and try again.')),
])
def test_bad_action_bodies_are_400(vclient, db, snapshot, body, message):
    assert fault(action(vclient, snapshot.id, body)) == (400, message)
    assert _status(db, snapshot.id) == 'creating'


def test_a_body_that_is_not_json_is_400(vclient, snapshot):
    resp = vclient.simulate_post(f'/v3/snapshots/{snapshot.id}/action', body='{not json',
                                 headers=admin())
    assert fault(resp) == (400, 'Malformed request body')


@pytest.mark.parametrize('body', [{'os-reset_status': {'status': 'error'}},
                                  {'os-update_snapshot_status': {'status': 'error'}},
                                  {'os-force_delete': {}}])
def test_actions_on_an_unknown_snapshot_are_404(vclient, rpc, body):
    assert fault(action(vclient, MISSING, body)) == (
        404, f'Snapshot {MISSING} could not be found.')
    assert rpc.volume.calls == []


# --- os-reset_status ------------------------------------------------------------

@pytest.mark.parametrize('asked, stored', [('error', 'error'), ('AVAILABLE', 'available'),
                                           ('deleted', 'deleted'), ('backing-up', 'backing-up')])
def test_admins_reset_to_any_snapshot_status(vclient, db, snapshot, asked, stored):
    resp = action(vclient, snapshot.id, {'os-reset_status': {'status': asked}})
    assert resp.status_code == 202 and not resp.content
    assert _status(db, snapshot.id) == stored


@pytest.mark.parametrize('args, message', [
    ({'status': 'bogus'}, f'Snapshot status: bogus is invalid, valid statuses are: {_STATUSES}.'),
    ({'status': ''}, f'Snapshot status:  is invalid, valid statuses are: {_STATUSES}.'),
    ({}, "Invalid input for field/attribute os-reset_status. Value: {}. 'status' is a required "
         'property'),
    ({'status': 'error', 'attach_status': 'detached'},
     "Invalid input for field/attribute os-reset_status. Value: {'status': 'error', "
     "'attach_status': 'detached'}. Additional properties are not allowed ('attach_status' "
     'was unexpected)'),
    ({'status': 3}, "Invalid input for field/attribute status. Value: 3. 3 is not of type "
                    "'string'"),
])
def test_bad_reset_bodies_are_400(vclient, db, snapshot, args, message):
    assert fault(action(vclient, snapshot.id, {'os-reset_status': args})) == (400, message)
    assert _status(db, snapshot.id) == 'creating'


def test_members_may_not_reset(kclient, db, snapshot):
    resp = action(kclient, snapshot.id, {'os-reset_status': {'status': 'error'}},
                  headers=user())
    assert fault(resp) == (403, "Policy doesn't allow volume_extension:snapshot_admin_actions:"
                                'reset_status to be performed.')
    assert _status(db, snapshot.id) == 'creating'


# --- os-update_snapshot_status ----------------------------------------------------

@pytest.mark.parametrize('start, args, status, progress', [
    ('creating', {'status': 'available', 'progress': '100%'}, 'available', '100%'),
    ('creating', {'status': 'creating', 'progress': '40%'}, 'creating', '40%'),
    ('creating', {'status': 'error'}, 'error', '100%'),
    ('creating', {'status': 'error', 'progress': ''}, 'error', '100%'),
    ('deleting', {'status': 'error_deleting'}, 'error_deleting', '100%'),
])
def test_members_report_the_status_of_their_snapshots(kclient, db, start, args, status,
                                                      progress):
    snapshot = add_snapshot(db, add_volume(db, project=PROJECT), status=start)
    resp = action(kclient, snapshot.id, {'os-update_snapshot_status': args}, headers=user())
    assert resp.status_code == 202
    row = db_snapshots.get(db, snapshot_id=snapshot.id)
    assert (row.status, row.progress) == (status, progress)


@pytest.mark.parametrize('start, args, message', [
    ('available', {'status': 'error'}, 'Snapshot status available not allowed for '
                                       'update_snapshot_status'),
    ('creating', {'status': 'deleting'}, 'Provided snapshot status deleting not allowed for '
                                         'snapshot with status creating.'),
    ('deleting', {'status': 'available'}, 'Provided snapshot status available not allowed '
                                          'for snapshot with status deleting.'),
    ('creating', {'status': 'available', 'progress': '50'},
     'Invalid input received: progress must be an integer percentage between 0 and 100'),
    ('creating', {'status': 'available', 'progress': '101%'},
     'Invalid input received: progress must be an integer percentage between 0 and 100'),
    ('creating', {'status': 'available', 'progress': 'half%'},
     'Invalid input received: progress must be an integer percentage'),
    ('creating', {'progress': '10%'}, "Invalid input for field/attribute "
                                      "os-update_snapshot_status. Value: {'progress': '10%'}. "
                                      "'status' is a required property"),
])
def test_refused_status_reports_are_400_and_change_nothing(vclient, db, start, args, message):
    snapshot = add_snapshot(db, add_volume(db), status=start)
    resp = action(vclient, snapshot.id, {'os-update_snapshot_status': args})
    assert fault(resp) == (400, message)
    row = db_snapshots.get(db, snapshot_id=snapshot.id)
    assert (row.status, row.progress) == (start, '100%')


def test_readers_may_not_report_a_status(kclient, db, snapshot):
    resp = action(kclient, snapshot.id, {'os-update_snapshot_status': {'status': 'error'}},
                  headers=user('reader'))
    assert fault(resp) == (403, "Policy doesn't allow snapshot_extension:snapshot_actions:"
                                'update_snapshot_status to be performed.')
    assert _status(db, snapshot.id) == 'creating'


# --- os-force_delete ---------------------------------------------------------------

@pytest.mark.parametrize('status', ['creating', 'error_deleting', 'restoring'])
def test_admins_force_delete_in_any_status(vclient, db, rpc, status):
    volume = add_volume(db)
    snapshot = add_snapshot(db, volume, status=status)
    assert action(vclient, snapshot.id, {'os-force_delete': {}}).status_code == 202
    assert _status(db, snapshot.id) == 'deleting'
    assert rpc.volume.calls == [('delete_snapshot', {
        'snapshot_id': snapshot.id, 'host': volume.host, 'cluster_name': None})]


def test_force_delete_of_a_group_snapshot_member_is_400(vclient, db, rpc):
    snapshot = add_snapshot(db, add_volume(db), group_snapshot_id=MISSING)
    assert fault(action(vclient, snapshot.id, {'os-force_delete': {}})) == (
        400, 'Invalid snapshot: Snapshot  must not be part of a group.')
    assert _status(db, snapshot.id) == 'available' and rpc.volume.calls == []


def test_members_may_not_force_delete(kclient, db, rpc, snapshot):
    assert fault(action(kclient, snapshot.id, {'os-force_delete': {}}, headers=user())) == (
        403, "Policy doesn't allow volume_extension:snapshot_admin_actions:force_delete to be "
             'performed.')
    assert _status(db, snapshot.id) == 'creating' and rpc.volume.calls == []


# --- revert (volume action, 3.40) ---------------------------------------------------

def _revert(client, volume_id, snapshot_id, headers=None, version='3.40'):
    return volume_action(client, volume_id, {'revert': {'snapshot_id': snapshot_id}},
                         headers=headers, version=version)


def _states(db, volume, snapshot):
    return (db_volumes.get(db, volume_id=volume.id).status,
            db_snapshots.get(db, snapshot_id=snapshot.id).status)


@pytest.fixture
def reverting(db):
    """A 2G volume with an older and a latest snapshot, all available."""
    volume = add_volume(db, size=2, cluster_name='c@fake')
    add_snapshot(db, volume, display_name='old')
    return volume, add_snapshot(db, volume, display_name='latest')


def test_revert_to_the_latest_snapshot(vclient, db, rpc, reverting):
    volume, latest = reverting
    assert _revert(vclient, volume.id, latest.id).status_code == 202
    assert _states(db, volume, latest) == ('reverting', 'restoring')
    assert rpc.volume.calls == [('revert_to_snapshot', {
        'volume_id': volume.id, 'snapshot_id': latest.id, 'host': volume.host,
        'cluster_name': 'c@fake'})]


def test_revert_before_3_40_is_404(vclient, db, rpc, reverting):
    volume, latest = reverting
    assert fault(_revert(vclient, volume.id, latest.id, version='3.39')) == (
        404, 'The resource could not be found.')
    assert _states(db, volume, latest) == ('available', 'available') and rpc.volume.calls == []


def test_revert_to_an_older_snapshot_is_400(vclient, db, rpc, reverting):
    volume, latest = reverting
    older = next(s for s in db_snapshots.of_volume(db, volume_id=volume.id)
                 if s.id != latest.id)
    for snapshot_id in (older.id, None, MISSING):
        assert fault(_revert(vclient, volume.id, snapshot_id)) == (
            400, f'Specified snapshot {snapshot_id} is None or not the latest one of volume '
                 f'{volume.id}.')
    assert _states(db, volume, latest) == ('available', 'available') and rpc.volume.calls == []


def test_revert_without_snapshots_is_400(vclient, db, rpc):
    volume = add_volume(db)
    assert fault(_revert(vclient, volume.id, MISSING)) == (
        400, f"Volume {volume.id} doesn't have any snapshots.")
    assert db_volumes.get(db, volume_id=volume.id).status == 'available'


def test_revert_after_an_extend_is_400(vclient, db, rpc):
    volume = add_volume(db, size=1)
    snapshot = add_snapshot(db, volume)
    db_volumes.update(db, volume_id=volume.id, values={'size': 2})
    assert fault(_revert(vclient, volume.id, snapshot.id)) == (
        400, f"Can't revert volume {volume.id} to its latest snapshot {snapshot.id}. The "
             'volume size must be equal to the snapshot size.')
    assert _states(db, volume, snapshot) == ('available', 'available') and rpc.volume.calls == []


@pytest.mark.parametrize('volume_status', ['in-use', 'reverting', 'error'])
def test_revert_of_a_volume_not_available_is_409(vclient, db, rpc, volume_status):
    volume = add_volume(db, status=volume_status)
    snapshot = add_snapshot(db, volume)
    assert fault(_revert(vclient, volume.id, snapshot.id)) == (
        409, f"Invalid volume: Can't revert volume {volume.id} to its latest snapshot "
             f"{snapshot.id}. Volume's status must be 'available'.")
    assert _states(db, volume, snapshot) == (volume_status, 'available')
    assert rpc.volume.calls == []


def test_revert_to_a_snapshot_not_available_is_409_and_the_volume_stays(vclient, db, rpc):
    volume = add_volume(db)
    snapshot = add_snapshot(db, volume, status='error')
    assert fault(_revert(vclient, volume.id, snapshot.id)) == (
        409, f"Invalid snapshot: Can't revert volume {volume.id} to its latest snapshot "
             f"{snapshot.id}. Snapshot's status must be 'available'.")
    assert _states(db, volume, snapshot) == ('available', 'error') and rpc.volume.calls == []


@pytest.mark.parametrize('body, message', [
    ({'revert': 'x'}, "Invalid input for field/attribute revert. Value: x. 'x' is not of type "
                      "'object'"),
    ({'revert': {'snapshot_id': 5}}, "Invalid input for field/attribute snapshot_id. Value: "
                                     "5. 5 is not of type 'string', 'null'"),
])
def test_bad_revert_bodies_are_400(vclient, db, rpc, reverting, body, message):
    volume, latest = reverting
    assert fault(volume_action(vclient, volume.id, body, version='3.40')) == (400, message)
    assert _states(db, volume, latest) == ('available', 'available') and rpc.volume.calls == []


def test_revert_policy(kclient, db, rpc):
    volume = add_volume(db, project=PROJECT)
    snapshot = add_snapshot(db, volume)
    assert fault(_revert(kclient, volume.id, snapshot.id, headers=user('reader', version='3.40'))
                 ) == (403, "Policy doesn't allow volume:revert_to_snapshot to be performed.")
    assert _states(db, volume, snapshot) == ('available', 'available')
    assert _revert(kclient, volume.id, snapshot.id,
                   headers=user(version='3.40')).status_code == 202


def test_revert_of_an_unknown_volume_is_404(vclient, rpc):
    assert fault(_revert(vclient, MISSING, MISSING)) == (
        404, f'Volume {MISSING} could not be found.')


def test_reset_sends_snapshot_reset_status_start_and_end(conf, seeded):
    conf.set_override('driver', ['test'], group='oslo_messaging_notifications')
    _impl_test.reset()
    client = testing.TestClient(create_app(conf, db=seeded))
    snapshot = add_snapshot(seeded, add_volume(seeded), status='creating')
    assert action(client, snapshot.id, {'os-reset_status': {'status': 'error'}}).status_code == 202
    assert [(m['event_type'], m['payload']['status'])
            for _c, m, _p, _r in _impl_test.NOTIFICATIONS] == [
        ('snapshot.reset_status.start', 'creating'), ('snapshot.reset_status.end', 'error')]
    # os-update_snapshot_status and os-force_delete send none from the API (as Cinder's).
    _impl_test.reset()
    assert action(client, snapshot.id, {'os-force_delete': {}}).status_code == 202
    assert _impl_test.NOTIFICATIONS == []
