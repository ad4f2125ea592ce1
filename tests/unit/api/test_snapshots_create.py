"""POST /snapshots: row, quota and cast; force and 3.66; every refusal writes nothing."""

import pytest
from falcon import testing

from cinderlike.api.app import create_app
from cinderlike.api.resources.snapshots import SNAPSHOT_IN_USE_FLAG_MSG
from cinderlike.db import snapshots as db_snapshots
from cinderlike.db import workers as db_workers
from tests.unit.api.snapshot_fixtures import (
    create,
    fault,
    nothing_held,
    snapshot_rows,
    snapshot_usage,
)
from tests.unit.api.type_fixtures import PROJECT, user
from tests.unit.api.volume_fixtures import RecordingRPC, add_volume

# tempest's common_snapshot_schema: what create, update and the list show at 3.0.
BASE_FIELDS = {'id', 'created_at', 'updated_at', 'name', 'description', 'volume_id',
               'status', 'size', 'metadata'}
MISSING = '9b1d3e2c-2d4a-4c39-8a42-7d3f9f0e1a11'


def test_create_inserts_creating_commits_quota_and_casts_to_the_scheduler(vclient, db, rpc):
    volume = add_volume(db, size=3)
    resp = create(vclient, {'snapshot': {'volume_id': volume.id, 'name': ' daily ',
                                         'description': ' first ', 'metadata': {'k': 'v'}}})
    assert resp.status_code == 202
    shown = resp.json['snapshot']
    assert set(shown) == BASE_FIELDS
    assert (shown['name'], shown['description'], shown['status'], shown['size'],
            shown['volume_id'], shown['metadata']) == ('daily', 'first', 'creating', 3,
                                                       volume.id, {'k': 'v'})
    row = db_snapshots.get(db, snapshot_id=shown['id'])
    assert (row.status, row.progress, row.volume_size, row.project_id) == ('creating', '0%', 3,
                                                                            'admin')
    assert rpc.scheduler.calls == [('create_snapshot', {
        'snapshot_id': row.id, 'volume_id': volume.id,
        'request_spec': {'snapshot_id': row.id, 'volume_properties': {'size': 3}}})]
    # gigabytes in use: the 3G volume and its 3G snapshot.
    assert snapshot_usage(db) == {'snapshots': (1, 0), 'snapshots___DEFAULT__': (1, 0),
                                  'gigabytes': (6, 0), 'gigabytes___DEFAULT__': (6, 0)}


def test_no_snapshot_gb_quota_counts_only_snapshots(vclient, db, conf):
    conf.set_override('no_snapshot_gb_quota', True)
    volume = add_volume(db, size=3)
    assert create(vclient, {'snapshot': {'volume_id': volume.id}}).status_code == 202
    assert snapshot_usage(db) == {'snapshots': (1, 0), 'snapshots___DEFAULT__': (1, 0)}


@pytest.mark.parametrize('body, name', [
    ({'display_name': 'old'}, 'old'),
    ({'name': 'new', 'display_name': 'old'}, 'new'),
    ({'name': None, 'display_name': 'old'}, None),
])
def test_name_and_its_display_name_alias(vclient, db, body, name):
    volume = add_volume(db)
    resp = create(vclient, {'snapshot': {'volume_id': volume.id, **body}})
    assert resp.json['snapshot']['name'] == name


@pytest.mark.parametrize('version, status, force, code', [
    ('3.0', 'available', None, 202),
    ('3.0', 'in-use', True, 202),
    ('3.0', 'in-use', 'yes', 202),
    ('3.0', 'in-use', None, 400),
    ('3.0', 'in-use', 'false', 400),
    ('3.65', 'in-use', None, 400),
    ('3.66', 'in-use', None, 202),
    ('3.66', 'in-use', 'True', 202),
])
def test_in_use_volumes_need_force_before_3_66(vclient, db, rpc, version, status, force, code):
    volume = add_volume(db, status=status)
    body = {'volume_id': volume.id}
    if force is not None:
        body['force'] = force
    resp = create(vclient, {'snapshot': body}, version=version)
    assert resp.status_code == code
    if code == 400:
        assert fault(resp) == (400, f'Invalid volume: Volume {volume.id} status must be '
                                    'available, but current status is: in-use.')
        assert snapshot_rows(db) == [] and nothing_held(db) and rpc.scheduler.calls == []


@pytest.mark.parametrize('status, force', [('in-use', False), ('available', 'false'),
                                           ('available', 'off')])
def test_force_false_from_3_66_is_refused(vclient, db, rpc, status, force):
    volume = add_volume(db, status=status)
    resp = create(vclient, {'snapshot': {'volume_id': volume.id, 'force': force}},
                  version='3.66')
    assert fault(resp) == (400, SNAPSHOT_IN_USE_FLAG_MSG)
    assert SNAPSHOT_IN_USE_FLAG_MSG.startswith(
        "Since microversion 3.66 the 'force' flag is invalid for this request.  For backward")
    assert snapshot_rows(db) == [] and nothing_held(db) and rpc.scheduler.calls == []


@pytest.mark.parametrize('values, message', [
    ({'status': 'error'}, 'The snapshot cannot be created when the volume is in error status.'),
    ({'status': 'maintenance'}, 'The snapshot cannot be created when the volume is in '
                                'maintenance mode.'),
    ({'host': None}, 'The snapshot cannot be created because volume has not been scheduled '
                     'to any host.'),
    ({'migration_status': 'migrating'}, 'Snapshot cannot be created while volume is '
                                        'migrating.'),
    ({'status': 'creating'}, 'Volume {id} status must be available, in-use, but current '
                             'status is: creating.'),
])
def test_volume_states_that_refuse_a_snapshot(vclient, db, rpc, values, message):
    volume = add_volume(db, **values)
    resp = create(vclient, {'snapshot': {'volume_id': volume.id, 'force': True}})
    assert fault(resp) == (400, 'Invalid volume: ' + message.format(id=volume.id))
    assert snapshot_rows(db) == [] and nothing_held(db) and rpc.scheduler.calls == []


_BOOLS = ("[True, 'True', 'TRUE', 'true', '1', 'ON', 'On', 'on', 'YES', 'Yes', 'yes', 'y', "
          "'t', False, 'False', 'FALSE', 'false', '0', 'OFF', 'Off', 'off', 'NO', 'No', 'no', "
          "'n', 'f']")


@pytest.mark.parametrize('body, message', [
    (None, "None is not of type 'object'"),
    ({}, "'snapshot' is a required property"),
    ({'snapshot': {}}, "Invalid input for field/attribute snapshot. Value: {}. 'volume_id' is "
                       'a required property'),
    ({'snapshot': {'volume_id': 'abc'}}, 'Invalid input for field/attribute volume_id. Value: '
                                         "abc. 'abc' is not valid under any of the given "
                                         'schemas'),
    ({'snapshot': {'volume_id': MISSING, 'force': 'maybe'}},
     f"Invalid input for field/attribute force. Value: maybe. 'maybe' is not one of {_BOOLS}"),
    ({'snapshot': {'volume_id': MISSING, 'display_description': 'd'}},
     "Invalid input for field/attribute snapshot. Value: {'volume_id': '" + MISSING +
     "', 'display_description': 'd'}. Additional properties are not allowed "
     "('display_description' was unexpected)"),
    ({'snapshot': {'volume_id': MISSING, 'name': 'n' * 256}},
     f"Invalid input for field/attribute name. Value: {'n' * 256}. '{'n' * 256}' is too long"),
    ({'snapshot': {'volume_id': MISSING, 'metadata': {'k': 1}}},
     "Invalid input for field/attribute k. Value: 1. 1 is not of type 'string'"),
    ({'snapshot': {'volume_id': MISSING, 'metadata': 'k'}},
     "Invalid input for field/attribute metadata. Value: k. 'k' is not of type 'object', "
     "'null'"),
])
def test_bad_bodies_are_400(vclient, db, rpc, body, message):
    add_volume(db)
    assert fault(create(vclient, body)) == (400, message)
    assert snapshot_rows(db) == [] and nothing_held(db) and rpc.scheduler.calls == []


def test_unknown_volume_is_404(vclient, db, rpc):
    resp = create(vclient, {'snapshot': {'volume_id': MISSING}})
    assert fault(resp) == (404, f'Volume {MISSING} could not be found.')
    assert snapshot_rows(db) == [] and rpc.scheduler.calls == []


def test_null_volume_id_is_404(vclient, db):
    assert fault(create(vclient, {'snapshot': {'volume_id': None}})) == (
        404, 'Volume None could not be found.')


def test_snapshot_quota_exceeded_is_413(vclient, db, rpc, conf):
    conf.set_override('quota_snapshots', 0)
    volume = add_volume(db)
    resp = create(vclient, {'snapshot': {'volume_id': volume.id}})
    assert fault(resp) == (413, 'SnapshotLimitExceeded: Maximum number of snapshots allowed '
                                '(0) exceeded')
    assert snapshot_rows(db) == [] and nothing_held(db) and rpc.scheduler.calls == []


def test_gigabytes_quota_exceeded_is_413(vclient, db, rpc, conf):
    conf.set_override('quota_gigabytes', 2)
    volume = add_volume(db, size=3)
    resp = create(vclient, {'snapshot': {'volume_id': volume.id}})
    assert fault(resp) == (413, 'VolumeSizeExceedsAvailableQuota: Requested volume or snapshot '
                                'exceeds allowed gigabytes quota. Requested 3G, quota is 2G '
                                'and 3G has been consumed.')
    assert snapshot_rows(db) == [] and nothing_held(db) and rpc.scheduler.calls == []


def test_members_snapshot_their_projects_volumes(kclient, db, rpc):
    volume = add_volume(db, project=PROJECT)
    resp = create(kclient, {'snapshot': {'volume_id': volume.id}}, headers=user())
    assert resp.status_code == 202
    assert snapshot_rows(db)[0].project_id == PROJECT


def test_readers_may_not_create(kclient, db, rpc):
    volume = add_volume(db, project=PROJECT)
    resp = create(kclient, {'snapshot': {'volume_id': volume.id}}, headers=user('reader'))
    assert fault(resp) == (403, "Policy doesn't allow volume:create_snapshot to be performed.")
    assert snapshot_rows(db) == [] and nothing_held(db, PROJECT) and rpc.scheduler.calls == []


def test_another_projects_volume_is_404(kclient, db, rpc):
    volume = add_volume(db, project='someone-else')
    resp = create(kclient, {'snapshot': {'volume_id': volume.id}}, headers=user())
    assert fault(resp) == (404, f'Volume {volume.id} could not be found.')
    assert snapshot_rows(db) == [] and rpc.scheduler.calls == []


def test_a_cast_that_raises_a_bug_is_undone_and_answers_500(conf, seeded, db):
    class Down:
        def create_snapshot(self, ctx, **kwargs):
            raise RuntimeError('no scheduler')

    client = testing.TestClient(create_app(conf, db=seeded,
                                           rpc=RecordingRPC(scheduler=Down())))
    volume = add_volume(db)
    resp = create(client, {'snapshot': {'volume_id': volume.id}})
    assert resp.status_code == 500
    assert snapshot_rows(db) == [] and nothing_held(db)
    assert db_workers.get_all(db) == []
