"""POST …/{id}/accept: the volume, its snapshots and their quota usage move to the accepting
project in one transaction; a wrong key, a closed transfer or a full quota moves nothing."""

import pytest
from falcon import testing
from oslo_messaging.notify import _impl_test

from cinderlike.api.app import create_app
from cinderlike.db import volumes as db_volumes
from tests.unit.api.transfer_fixtures import (
    DONOR,
    TAKER,
    accept,
    add_snapshot,
    create,
    member,
    owned_volume,
    snapshot_owners,
    taker,
    transfer_rows,
    used,
)
from tests.unit.api.volume_fixtures import fault

ADMIN = member('admin', 'u-admin', roles='admin,member,reader')
DONOR_USAGE = {'volumes': 1, 'gigabytes': 2, 'volumes___DEFAULT__': 1,
               'gigabytes___DEFAULT__': 2}


def _offer(client, db, conf, *, version=None, path='volume-transfers', **extra):
    volume = owned_volume(db, conf, size=2)
    shown = create(client, volume.id, path=path, headers=member(version=version),
                   **extra).json['transfer']
    return volume, shown['id'], shown['auth_key']


@pytest.mark.parametrize('path', ['os-volume-transfer', 'volume-transfers'])
def test_accept_moves_the_volume_and_its_usage(kclient, seeded, conf, path):
    volume, transfer_id, key = _offer(kclient, seeded, conf, path=path)
    assert used(seeded, DONOR) == DONOR_USAGE
    resp = accept(kclient, transfer_id, key, path=path, headers=taker())
    assert resp.status_code == 202
    assert resp.json == {'transfer': {
        'id': transfer_id, 'volume_id': volume.id, 'name': None, 'links': [
            {'rel': 'self', 'href': f'http://falconframework.org/v3/{TAKER}/'
                                    f'os-volume-transfer/{transfer_id}'},
            {'rel': 'bookmark', 'href': f'http://falconframework.org/{TAKER}/'
                                        f'os-volume-transfer/{transfer_id}'}]}}
    moved = db_volumes.get(seeded, volume_id=volume.id)
    assert (moved.status, moved.project_id, moved.user_id) == ('available', TAKER, 'u-taker')
    assert used(seeded, TAKER) == DONOR_USAGE
    assert used(seeded, DONOR) == dict.fromkeys(DONOR_USAGE, 0)
    row, = transfer_rows(seeded)
    assert (row.deleted, row.accepted, row.destination_project_id, row.source_project_id) == (
        True, True, TAKER, DONOR)
    assert fault(kclient.simulate_get(f'/v3/volume-transfers/{transfer_id}',
                                      headers=member())) == (
        404, f'Transfer {transfer_id} could not be found.')
    assert kclient.simulate_get(f'/v3/volumes/{volume.id}', headers=taker()).status_code == 200


def test_snapshots_travel_unless_no_snapshots(kclient, seeded, conf):
    volume, transfer_id, key = _offer(kclient, seeded, conf, version='3.55')
    add_snapshot(seeded, conf, volume)
    assert accept(kclient, transfer_id, key, headers=taker()).status_code == 202
    assert snapshot_owners(seeded, volume.id) == {(TAKER, 'u-taker')}
    assert used(seeded, TAKER) == {**DONOR_USAGE, 'gigabytes': 4, 'gigabytes___DEFAULT__': 4,
                                   'snapshots': 1, 'snapshots___DEFAULT__': 1}
    assert used(seeded, DONOR) == dict.fromkeys(used(seeded, TAKER), 0)


def test_no_snapshots_leaves_them_and_their_usage_with_the_donor(kclient, seeded, conf):
    volume = owned_volume(seeded, conf, size=2)
    add_snapshot(seeded, conf, volume)
    shown = create(kclient, volume.id, headers=member(version='3.57'),
                   no_snapshots=True).json['transfer']
    assert accept(kclient, shown['id'], shown['auth_key'], headers=taker()).status_code == 202
    assert snapshot_owners(seeded, volume.id) == {(DONOR, 'u-donor')}
    assert used(seeded, TAKER) == DONOR_USAGE
    assert used(seeded, DONOR) == {**dict.fromkeys(DONOR_USAGE, 0), 'gigabytes': 2,
                                   'gigabytes___DEFAULT__': 2, 'snapshots': 1,
                                   'snapshots___DEFAULT__': 1}


def test_snapshot_quota_without_gigabytes_under_no_snapshot_gb_quota(kclient, seeded, conf):
    conf.set_override('no_snapshot_gb_quota', True)
    volume, transfer_id, key = _offer(kclient, seeded, conf)
    add_snapshot(seeded, conf, volume)
    assert accept(kclient, transfer_id, key, headers=taker()).status_code == 202
    assert used(seeded, TAKER)['gigabytes'] == 2 and used(seeded, TAKER)['snapshots'] == 1


def _unchanged(db, volume, transfer_id, donor_usage):
    row = db_volumes.get(db, volume_id=volume.id)
    assert (row.status, row.project_id, row.user_id) == ('awaiting-transfer', DONOR, 'u-donor')
    assert transfer_rows(db)[0].deleted is False and transfer_rows(db)[0].id == transfer_id
    assert used(db, DONOR) == donor_usage
    assert not any(used(db, TAKER).values())


def test_wrong_key_is_400_and_moves_nothing(kclient, seeded, conf):
    volume, transfer_id, key = _offer(kclient, seeded, conf)
    for wrong in ('0' * 16, key[:-1], 1234):
        assert fault(accept(kclient, transfer_id, wrong, headers=taker())) == (
            400, f'Invalid auth key: Attempt to transfer {transfer_id} with invalid auth key.')
    _unchanged(seeded, volume, transfer_id, DONOR_USAGE)


@pytest.mark.parametrize('body, message', [
    ({}, "'accept' is a required property"),
    ({'accept': {}}, "'auth_key' is a required property"),
    ({'accept': {'auth_key': None}}, 'None is not of type'),
    ({'accept': {'auth_key': 'k', 'x': 1}}, 'Additional properties are not allowed'),
])
def test_bad_accept_bodies_are_400(kclient, seeded, conf, body, message):
    volume, transfer_id, _key = _offer(kclient, seeded, conf)
    code, got = fault(kclient.simulate_post(f'/v3/volume-transfers/{transfer_id}/accept',
                                            json=body, headers=taker()))
    assert code == 400 and message in got
    _unchanged(seeded, volume, transfer_id, DONOR_USAGE)


def test_unknown_transfer_is_404(kclient, seeded):
    missing = '00000000-0000-0000-0000-000000000009'
    assert fault(accept(kclient, missing, 'k', headers=taker())) == (
        404, f'Transfer {missing} could not be found.')


def test_a_reader_may_not_accept(kclient, seeded, conf):
    volume, transfer_id, key = _offer(kclient, seeded, conf)
    resp = accept(kclient, transfer_id, key, headers=member(TAKER, roles='reader'))
    assert fault(resp) == (403, "Policy doesn't allow volume:accept_transfer to be performed.")
    _unchanged(seeded, volume, transfer_id, DONOR_USAGE)


@pytest.mark.parametrize('limits, message, retry', [
    ({'volumes': 0}, "VolumeLimitExceeded: Maximum number of volumes allowed (0) exceeded for "
                     "quota 'volumes'.", True),
    ({'gigabytes': 1}, 'Requested volume or snapshot exceeds allowed gigabytes quota. '
                       'Requested 2G, quota is 1G and 0G has been consumed.', True),
    ({'per_volume_gigabytes': 1}, 'VolumeSizeExceedsLimit: Requested volume size 2G is larger '
                                  'than maximum allowed limit 1G.', True),
])
def test_over_quota_in_the_accepting_project_is_413(kclient, seeded, conf, limits,
                                                     message, retry):
    volume, transfer_id, key = _offer(kclient, seeded, conf)
    assert kclient.simulate_put(f'/v3/os-quota-sets/{TAKER}', headers=ADMIN,
                                json={'quota_set': limits}).status_code == 200
    resp = accept(kclient, transfer_id, key, headers=taker())
    assert fault(resp) == (413, message)
    assert resp.headers['Retry-After'] == '0' and resp.json['overLimit']['retryAfter'] == '0'
    _unchanged(seeded, volume, transfer_id, DONOR_USAGE)


def test_snapshots_over_quota_is_413_and_moves_nothing(kclient, seeded, conf):
    volume, transfer_id, key = _offer(kclient, seeded, conf)
    add_snapshot(seeded, conf, volume)
    assert kclient.simulate_put(f'/v3/os-quota-sets/{TAKER}', headers=ADMIN,
                                json={'quota_set': {'snapshots': 0}}).status_code == 200
    assert fault(accept(kclient, transfer_id, key, headers=taker())) == (
        413, 'SnapshotLimitExceeded: Maximum number of snapshots allowed (0) exceeded')
    _unchanged(seeded, volume, transfer_id, {**DONOR_USAGE, 'gigabytes': 4,
                                             'gigabytes___DEFAULT__': 4, 'snapshots': 1,
                                             'snapshots___DEFAULT__': 1})
    assert snapshot_owners(seeded, volume.id) == {(DONOR, 'u-donor')}


def test_a_snapshot_that_is_not_available_stops_the_accept(kclient, seeded, conf):
    volume, transfer_id, key = _offer(kclient, seeded, conf)
    snapshot = add_snapshot(seeded, conf, volume, status='deleting', counted=False)
    assert fault(accept(kclient, transfer_id, key, headers=taker())) == (
        400, f'Invalid snapshot: Transfer {transfer_id}: Snapshot {snapshot} is not in the '
             'expected available state.')
    _unchanged(seeded, volume, transfer_id, DONOR_USAGE)


def test_a_volume_that_left_awaiting_transfer_is_400(kclient, seeded, conf):
    volume, transfer_id, key = _offer(kclient, seeded, conf)
    db_volumes.MACHINE.reset(seeded, row_id=volume.id, values={'status': 'available'})
    assert fault(accept(kclient, transfer_id, key, headers=taker())) == (
        400, f'Invalid volume: Transfer {transfer_id}: Volume id {volume.id} expected in '
             'awaiting-transfer state.')
    db_volumes.MACHINE.reset(seeded, row_id=volume.id, values={'status': 'maintenance'})
    assert fault(accept(kclient, transfer_id, key, headers=taker())) == (
        400, 'Invalid volume: The volume cannot accept transfer in maintenance mode.')
    assert db_volumes.get(seeded, volume_id=volume.id).project_id == DONOR
    assert not any(used(seeded, TAKER).values())


def test_accept_notifications(conf, seeded):
    conf.set_override('driver', ['test'], group='oslo_messaging_notifications')
    conf.set_override('auth_strategy', 'keystone')
    client = testing.TestClient(create_app(conf, db=seeded, use_auth_token=False))
    volume, transfer_id, key = _offer(client, seeded, conf)
    _impl_test.reset()
    assert accept(client, transfer_id, key, headers=taker()).status_code == 202
    sent = [(m['event_type'], m['payload']['tenant_id'], m['payload']['status'])
            for _ctx, m, _prio, _retry in _impl_test.NOTIFICATIONS]
    assert sent == [('volume.transfer.accept.start', DONOR, 'awaiting-transfer'),
                    ('volume.transfer.accept.end', TAKER, 'available')]


def test_accepting_into_the_donor_project_keeps_its_usage(kclient, seeded, conf):
    volume, transfer_id, key = _offer(kclient, seeded, conf)
    resp = accept(kclient, transfer_id, key, headers=member(DONOR, 'u-other'))
    assert resp.status_code == 202
    assert db_volumes.get(seeded, volume_id=volume.id).user_id == 'u-other'
    assert used(seeded, DONOR) == DONOR_USAGE
