"""/manageable_volumes, /manageable_snapshots (and /os-volume-manage, /os-snapshot-manage)
and os-unmanage: Cinder's answers, and every refusal writes nothing and casts nothing."""

import pytest
from falcon import testing

from cinderlike import exception
from cinderlike.api.app import create_app
from tests.unit.api.conftest import add_service
from tests.unit.api.pool_fixtures import AnsweringRPC
from tests.unit.api.snapshot_fixtures import add_snapshot, snapshot_rows, snapshot_usage
from tests.unit.api.type_fixtures import admin, user
from tests.unit.api.volume_fixtures import action, add_volume, fault, usages, volume_rows

HOST = 'node@file'
ENTRY = {'reference': {'source-name': 'legacy.img'}, 'size': 2, 'safe_to_manage': True,
         'reason_not_safe': None, 'cinder_id': None, 'extra_info': None}


@pytest.fixture
def service(seeded):
    return add_service(seeded, host=HOST, zone='zone-a')


@pytest.fixture
def answering():
    rpc = AnsweringRPC()
    rpc.volume.answer = [ENTRY]
    return rpc


@pytest.fixture
def lclient(conf, seeded, answering):
    return testing.TestClient(create_app(conf, db=seeded, rpc=answering))


def _manage(client, volume, version='3.8', path='/v3/manageable_volumes', headers=None):
    return client.simulate_post(path, json={'volume': volume},
                                headers=headers or admin(version))


def _nothing_written(db, rpc, count=0):
    assert len(volume_rows(db)) == count
    assert rpc.scheduler.calls == [] and rpc.volume.calls == []
    assert usages(db) == {}


def test_manage_inserts_a_managing_volume_and_casts_to_the_scheduler(vclient, seeded, rpc,
                                                                     service):
    resp = _manage(vclient, {'host': HOST, 'ref': {'source-name': 'legacy.img'},
                             'name': ' adopted ', 'metadata': {'k': 'v'}, 'bootable': True})
    assert resp.status_code == 202, resp.text
    shown = resp.json['volume']
    assert (shown['status'], shown['size'], shown['name'], shown['bootable']) == (
        'managing', 0, 'adopted', 'true')
    assert shown['availability_zone'] == 'zone-a' and shown['metadata'] == {'k': 'v'}
    # NOTE(legacy_detail): Cinder answers the 3.0 fields whatever the microversion.
    assert 'group_id' not in shown and 'os-vol-host-attr:host' not in shown
    (volume,) = volume_rows(seeded)
    assert (volume.host, volume.use_quota) == (HOST, False)
    ((method, kwargs),) = rpc.scheduler.calls
    assert (method, kwargs['volume_id'], kwargs['ref']) == (
        'manage_existing', volume.id, {'source-name': 'legacy.img'})
    assert kwargs['request_spec']['volume_properties']['size'] == 0
    assert usages(seeded) == {}


def test_a_pool_in_the_host_is_kept_and_the_legacy_path_answers_at_3_0(vclient, seeded, rpc,
                                                                       service):
    resp = _manage(vclient, {'host': f'{HOST}#pool', 'ref': 'legacy.img'}, version='3.0',
                   path='/v3/os-volume-manage')
    assert resp.status_code == 202, resp.text
    assert volume_rows(seeded)[0].host == f'{HOST}#pool'


@pytest.mark.parametrize('body, version, message', [
    ({'host': HOST}, '3.8', "'ref' is a required property"),
    ({'host': HOST, 'ref': 1}, '3.8', 'Invalid input for field/attribute ref.'),
    ({'host': HOST, 'ref': 'x', 'size': 1}, '3.8', 'Additional properties are not allowed'),
    ({'host': 'bad host!', 'ref': 'x'}, '3.8', 'Invalid input for field/attribute host.'),
    ({'host': HOST, 'ref': 'x', 'cluster': 'c'}, '3.8', 'Additional properties'),
    ({'ref': 'x'}, '3.8', 'Invalid input received: Host field is missing.'),
    ({'host': HOST, 'cluster': 'c@file', 'ref': 'x'}, '3.16',
     'Invalid input received: One and only one of cluster and host must be set.'),
    ({'ref': 'x'}, '3.16',
     'Invalid input received: One and only one of cluster and host must be set.'),
    ({'host': 'other@file', 'ref': 'x'}, '3.8', "Host 'other@file' not found"),
    ({'cluster': 'nowhere@file', 'ref': 'x'}, '3.16', "Cluster 'nowhere@file' not found"),
    ({'host': HOST, 'ref': 'x', 'volume_type': 'gold'}, '3.8',
     "Invalid volume type: Cannot find requested 'gold' volume type"),
    ({'host': HOST, 'ref': 'x', 'bootable': 'maybe'}, '3.8',
     'Invalid input for field/attribute bootable.'),
])
def test_bad_manage_requests_are_400_and_write_nothing(vclient, seeded, rpc, service, body,
                                                       version, message):
    code, text = fault(_manage(vclient, body, version=version))
    assert code == 400 and message in text
    _nothing_written(seeded, rpc)


@pytest.mark.parametrize('state', [{'disabled': True}, {'heartbeat_age': 3600}])
def test_a_disabled_or_down_service_is_unavailable(vclient, seeded, rpc, state):
    add_service(seeded, host=HOST, **state)
    assert fault(_manage(vclient, {'host': HOST, 'ref': 'x'})) == (
        400, 'Service is unavailable at this time.')
    _nothing_written(seeded, rpc)


def test_an_already_managed_volume_is_refused(vclient, seeded, rpc, service):
    volume = add_volume(seeded, host=f'{HOST}#pool')
    code, text = fault(_manage(vclient, {'host': HOST,
                                         'ref': {'source-name': f'volume-{volume.id}'}}))
    assert (code, text) == (400, 'Invalid volume: Unable to manage existing volume. The '
                                 'volume is already managed')
    _nothing_written(seeded, rpc, count=1)


def test_the_v3_paths_need_3_8(vclient, seeded, rpc, service):
    assert _manage(vclient, {'host': HOST, 'ref': 'x'}, version='3.7').status_code == 404
    assert vclient.simulate_get('/v3/manageable_volumes', params={'host': HOST},
                                headers=admin('3.7')).status_code == 404
    _nothing_written(seeded, rpc)


def test_manage_is_for_admins(kclient, seeded, rpc, service):
    resp = _manage(kclient, {'host': HOST, 'ref': 'x'}, headers=user(version='3.8'))
    assert fault(resp) == (403, 'Policy doesn\'t allow volume_extension:volume_manage to be '
                                'performed.')
    _nothing_written(seeded, rpc)


# --- manageable lists ----------------------------------------------------------------

def test_lists_ask_the_service_and_show_summary_or_detail(lclient, answering, service):
    resp = lclient.simulate_get('/v3/manageable_volumes', params={'host': HOST},
                                headers=admin('3.8'))
    assert resp.status_code == 200, resp.text
    assert resp.json == {'manageable-volumes': [
        {'reference': {'source-name': 'legacy.img'}, 'size': 2, 'safe_to_manage': True}]}
    ((method, kwargs),) = answering.volume.calls
    assert method == 'get_manageable_volumes'
    assert kwargs == {'host': HOST, 'cluster_name': None, 'marker': None, 'limit': 1000,
                      'offset': None, 'sort_keys': ['reference'], 'sort_dirs': ['desc']}
    resp = lclient.simulate_get('/v3/os-volume-manage/detail',
                                params={'host': HOST, 'sort': 'size:asc', 'limit': '1',
                                        'offset': '1', 'marker': '{"source-name": "a"}'},
                                headers=admin('3.0'))
    assert resp.json == {'manageable-volumes': [ENTRY]}
    assert answering.volume.calls[-1][1] | {'host': None} == {
        'host': None, 'cluster_name': None, 'marker': '{"source-name": "a"}', 'limit': 1,
        'offset': 1, 'sort_keys': ['size'], 'sort_dirs': ['asc']}


def test_snapshot_lists_show_the_source_reference(lclient, answering, service):
    answering.volume.answer = [dict(ENTRY, source_reference={'source-name': 'volume-1'})]
    resp = lclient.simulate_get('/v3/manageable_snapshots/detail', params={'host': HOST},
                                headers=admin('3.8'))
    assert resp.json == {'manageable-snapshots': [
        dict(ENTRY, source_reference={'source-name': 'volume-1'})]}
    assert answering.volume.calls[0][0] == 'get_manageable_snapshots'


@pytest.mark.parametrize('params, version, message', [
    ({}, '3.8', 'Invalid input received: Host field is missing.'),
    ({'host': HOST, 'cluster': 'c'}, '3.17',
     'Invalid input received: One and only one of cluster and host must be set.'),
    ({'host': HOST, 'sort': 'name'}, '3.8', 'Invalid sort keys passed: name'),
    ({'host': HOST, 'sort': 'size:up'}, '3.8', 'Invalid sort dirs passed: up'),
    ({'host': HOST, 'limit': 'x'}, '3.8', 'limit param must be an integer'),
    ({'host': 'nowhere@file'}, '3.8', 'Service is unavailable at this time.'),
])
def test_bad_list_requests_are_400(lclient, answering, service, params, version, message):
    code, text = fault(lclient.simulate_get('/v3/manageable_volumes', params=params,
                                            headers=admin(version)))
    assert code == 400 and message in text
    assert answering.volume.calls == []


def test_a_bad_marker_from_the_backend_is_400(lclient, answering, service):
    answering.volume.error = exception.InvalidInput(reason='marker not found: x')
    assert fault(lclient.simulate_get('/v3/manageable_volumes',
                                      params={'host': HOST, 'marker': 'x'},
                                      headers=admin('3.8'))) == (
        400, 'Invalid input received: marker not found: x')


# --- snapshots -----------------------------------------------------------------------

def test_snapshot_manage_commits_quota_and_casts(vclient, seeded, rpc, service):
    volume = add_volume(seeded, host=f'{HOST}#pool', size=3)
    resp = vclient.simulate_post('/v3/manageable_snapshots', headers=admin('3.8'), json={
        'snapshot': {'volume_id': volume.id, 'ref': {'source-name': 'snapshot-old'},
                     'name': 'kept'}})
    assert resp.status_code == 202, resp.text
    assert (resp.json['snapshot']['status'], resp.json['snapshot']['name']) == (
        'creating', 'kept')
    ((method, kwargs),) = rpc.scheduler.calls
    assert (method, kwargs['ref']) == ('manage_existing_snapshot',
                                       {'source-name': 'snapshot-old'})
    assert snapshot_usage(seeded)['snapshots'] == (1, 0)


@pytest.mark.parametrize('snapshot, code, message', [
    ({'ref': 'x'}, 400, "'volume_id' is a required property"),
    ({'volume_id': 'not-a-uuid', 'ref': 'x'}, 400, 'Invalid input for field/attribute'),
    ({'volume_id': '6c7e5d8e-7a55-4a4e-9f0a-2a0f3b9d4c11', 'ref': 'x'}, 404,
     'Volume 6c7e5d8e-7a55-4a4e-9f0a-2a0f3b9d4c11 could not be found.'),
])
def test_bad_snapshot_manage_requests_write_nothing(vclient, seeded, rpc, service, snapshot,
                                                    code, message):
    add_volume(seeded, host=f'{HOST}#pool')
    got, text = fault(vclient.simulate_post('/v3/manageable_snapshots', headers=admin('3.8'),
                                            json={'snapshot': snapshot}))
    assert got == code and message in text
    assert snapshot_rows(seeded) == [] and rpc.scheduler.calls == []


def test_snapshot_manage_on_a_down_backend_writes_nothing(vclient, seeded, rpc):
    add_service(seeded, host=HOST, heartbeat_age=3600)
    volume = add_volume(seeded, host=f'{HOST}#pool')
    assert fault(vclient.simulate_post('/v3/manageable_snapshots', headers=admin('3.8'), json={
        'snapshot': {'volume_id': volume.id, 'ref': 'x'}})) == (
        400, 'Service is unavailable at this time.')
    assert snapshot_rows(seeded) == [] and 'snapshots' not in snapshot_usage(seeded)


# --- os-unmanage ---------------------------------------------------------------------

def test_unmanage_moves_to_unmanaging_and_casts(vclient, seeded, rpc):
    volume = add_volume(seeded, host=f'{HOST}#pool')
    resp = action(vclient, volume.id, {'os-unmanage': {}})
    assert resp.status_code == 202, resp.text
    assert volume_rows(seeded)[0].status == 'unmanaging'
    assert rpc.volume.calls == [('delete_volume', {
        'volume_id': volume.id, 'host': f'{HOST}#pool', 'cluster_name': None,
        'unmanage_only': True})]


@pytest.mark.parametrize('values, message', [
    ({'status': 'in-use', 'attach_status': 'attached'},
     'Invalid volume: Volume status must be available or error or error_restoring or '
     'error_extending or error_managing and must not be migrating, attached, belong to a '
     'group, have snapshots, awaiting a transfer, or be disassociated from snapshots after '
     'volume transfer.'),
    # NOTE(cinder): Cinder raises Invalid(reason=...), whose text ignores the reason.
    ({'encryption_key_id': '6c7e5d8e-7a55-4a4e-9f0a-2a0f3b9d4c11'}, 'Unacceptable parameters.'),
])
def test_unmanage_refusals_change_nothing(vclient, seeded, rpc, values, message):
    volume = add_volume(seeded, host=f'{HOST}#pool', **values)
    status = volume.status
    assert fault(action(vclient, volume.id, {'os-unmanage': {}})) == (400, message)
    assert volume_rows(seeded)[0].status == status and rpc.volume.calls == []


def test_unmanage_is_for_admins(kclient, seeded, rpc):
    volume = add_volume(seeded, project='b6a4e8d1c5f04e5ba1a1f1c0d8a6a001',
                        host=f'{HOST}#pool')
    assert fault(action(kclient, volume.id, {'os-unmanage': {}}, headers=user()))[0] == 403
    assert volume_rows(seeded)[0].status == 'available' and rpc.volume.calls == []


def test_snapshot_unmanage_and_its_refusal(vclient, seeded, rpc):
    volume = add_volume(seeded, host=f'{HOST}#pool')
    kept = add_snapshot(seeded, volume)
    busy = add_snapshot(seeded, volume, status='creating')
    resp = vclient.simulate_post(f'/v3/snapshots/{kept.id}/action', headers=admin(),
                                 json={'os-unmanage': {}})
    assert resp.status_code == 202, resp.text
    assert rpc.volume.calls == [('delete_snapshot', {
        'snapshot_id': kept.id, 'host': f'{HOST}#pool', 'cluster_name': None,
        'unmanage_only': True})]
    assert fault(vclient.simulate_post(f'/v3/snapshots/{busy.id}/action', headers=admin(),
                                       json={'os-unmanage': {}})) == (
        400, 'Invalid snapshot: Snapshot status must be available or error and must not be '
             'part of a group.')
    assert {s.id: s.status for s in snapshot_rows(seeded)} == {kept.id: 'unmanaging',
                                                               busy.id: 'creating'}


def test_an_encrypted_volume_refusal_leaves_cinders_user_message(vclient, seeded, rpc):
    from cinderlike.db import messages as db_messages
    volume = add_volume(seeded, host=f'{HOST}#pool',
                        encryption_key_id='6c7e5d8e-7a55-4a4e-9f0a-2a0f3b9d4c11')
    assert fault(action(vclient, volume.id, {'os-unmanage': {}}))[0] == 400
    (message,) = db_messages.get_all(seeded, project_id='admin')
    assert (message.event_id, message.resource_uuid) == ('VOLUME_VOLUME_006_008', volume.id)
