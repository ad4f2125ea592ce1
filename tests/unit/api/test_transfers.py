"""/os-volume-transfer and /volume-transfers: create, show, list, delete, with Cinder's
fields per microversion, its refusals (status, body, encryption, snapshots, policy) and the
volume held in `awaiting-transfer` meanwhile."""

import hashlib
import hmac
import re

import pytest
from falcon import testing
from oslo_messaging.notify import _impl_test

from cinderlike.api.app import create_app
from cinderlike.db import volumes as db_volumes
from tests.unit.api.test_volumes_actions import DELETE_REFUSED
from tests.unit.api.transfer_fixtures import (
    DONOR,
    TAKER,
    add_snapshot,
    create,
    member,
    owned_volume,
    taker,
    transfer_rows,
)
from tests.unit.api.volume_fixtures import fault

UUID = '00000000-0000-0000-0000-000000000001'
BASE = {'id', 'created_at', 'name', 'volume_id', 'links'}
V355 = BASE | {'no_snapshots'}
V357 = V355 | {'destination_project_id', 'source_project_id', 'accepted'}


def _status(db, volume_id):
    return db_volumes.get(db, volume_id=volume_id).status


@pytest.mark.parametrize('path, version, fields', [
    ('os-volume-transfer', None, BASE), ('volume-transfers', None, BASE),
    ('volume-transfers', '3.55', V355), ('volume-transfers', '3.57', V357),
    ('os-volume-transfer', '3.71', V357)])
def test_create_returns_the_key_once_and_stores_only_its_salted_hash(
        kclient, seeded, conf, path, version, fields):
    volume = owned_volume(seeded, conf)
    resp = create(kclient, volume.id, path=path, name='  moving  ',
                  headers=member(version=version))
    assert resp.status_code == 202
    shown = resp.json['transfer']
    assert set(shown) == fields | {'auth_key'}
    assert re.fullmatch('[0-9a-f]{16}', shown['auth_key'])
    assert (shown['name'], shown['volume_id']) == ('moving', volume.id)
    assert shown['links'][0]['href'].endswith(f'/v3/{DONOR}/os-volume-transfer/{shown["id"]}')
    if version in ('3.57', '3.71'):
        assert (shown['no_snapshots'], shown['accepted'], shown['source_project_id'],
                shown['destination_project_id']) == (False, False, DONOR, None)
    row, = transfer_rows(seeded)
    assert re.fullmatch('[0-9a-f]{8}', row.salt)
    assert row.crypt_hash == hmac.new(row.salt.encode(), shown['auth_key'].encode(),
                                      hashlib.sha1).hexdigest()
    assert shown['auth_key'] not in {str(getattr(row, c.key)) for c in row.__table__.columns}
    assert _status(seeded, volume.id) == 'awaiting-transfer'
    got = kclient.simulate_get(f'/v3/{path}/{row.id}', headers=member(version=version))
    assert set(got.json['transfer']) == fields


def test_key_length_follows_the_option(kclient, seeded, conf):
    conf.set_override('volume_transfer_key_length', 40)
    conf.set_override('volume_transfer_salt_length', 3)
    volume = owned_volume(seeded, conf)
    assert len(create(kclient, volume.id, headers=member()).json['transfer']['auth_key']) == 40
    assert len(transfer_rows(seeded)[0].salt) == 3


def test_awaiting_transfer_volume_cannot_be_deleted_or_offered_twice(kclient, seeded, conf):
    volume = owned_volume(seeded, conf)
    assert create(kclient, volume.id, headers=member()).status_code == 202
    resp = kclient.simulate_delete(f'/v3/volumes/{volume.id}', headers=member())
    assert fault(resp) == (400, DELETE_REFUSED)
    again = create(kclient, volume.id, headers=member())
    assert fault(again) == (400, 'Invalid volume: status must be available')
    assert len(transfer_rows(seeded)) == 1 and _status(seeded, volume.id) == 'awaiting-transfer'


def _snapshot_volume(db, conf, status):
    volume = owned_volume(db, conf)
    return volume, add_snapshot(db, conf, volume, status=status)


@pytest.mark.parametrize('setup, extra, version, message', [
    (lambda db, conf: (owned_volume(db, conf, status='in-use'), None), {}, None,
     'Invalid volume: status must be available'),
    (lambda db, conf: (owned_volume(db, conf, encryption_key_id=UUID), None), {}, '3.69',
     'Invalid volume: transferring encrypted volume is not supported'),
    (lambda db, conf: (owned_volume(db, conf, encryption_key_id=UUID), None),
     {'no_snapshots': True}, '3.70', 'Invalid volume: transferring an encrypted volume '
                                     'without its snapshots is not supported'),
    (lambda db, conf: _snapshot_volume(db, conf, 'creating'), {}, '3.55',
     'Invalid snapshot: snapshot: {snapshot} status must be available'),
])
def test_refused_offers_write_nothing(kclient, seeded, conf, setup, extra, version, message):
    volume, snapshot = setup(seeded, conf)
    before = _status(seeded, volume.id)
    resp = create(kclient, volume.id, headers=member(version=version), **extra)
    assert fault(resp) == (400, message.format(snapshot=snapshot))
    assert transfer_rows(seeded) == [] and _status(seeded, volume.id) == before


def test_no_snapshots_lets_a_volume_with_busy_snapshots_go(kclient, seeded, conf):
    volume, _snapshot = _snapshot_volume(seeded, conf, 'creating')
    resp = create(kclient, volume.id, headers=member(version='3.55'), no_snapshots='true')
    assert resp.status_code == 202 and resp.json['transfer']['no_snapshots'] is True


@pytest.mark.parametrize('path, version, body, message', [
    ('volume-transfers', None, {}, "'transfer' is a required property"),
    ('volume-transfers', None, {'transfer': {}}, "'volume_id' is a required property"),
    ('volume-transfers', None, {'transfer': {'volume_id': 'abc'}},
     "Invalid input for field/attribute volume_id. Value: abc. 'abc' is not a 'uuid'"),
    ('volume-transfers', None, {'transfer': {'volume_id': UUID, 'name': '   '}},
     "Invalid input for field/attribute name. Value:    . '   ' is not valid under any of "
     'the given schemas'),
    ('volume-transfers', None, {'transfer': {'volume_id': UUID, 'name': 'x' * 256}},
     None),
    ('volume-transfers', '3.54', {'transfer': {'volume_id': UUID, 'no_snapshots': True}},
     "Additional properties are not allowed ('no_snapshots' was unexpected)"),
    ('os-volume-transfer', '3.71', {'transfer': {'volume_id': UUID, 'no_snapshots': True}},
     "Additional properties are not allowed ('no_snapshots' was unexpected)"),
    ('volume-transfers', '3.55', {'transfer': {'volume_id': UUID, 'no_snapshots': 'maybe'}},
     None),
])
def test_bad_bodies_are_400(kclient, seeded, conf, path, version, body, message):
    volume = owned_volume(seeded, conf)
    inner = body.get('transfer')
    if inner and inner.get('volume_id') == UUID:
        body = {'transfer': dict(inner, volume_id=volume.id)}
    resp = kclient.simulate_post(f'/v3/{path}', json=body, headers=member(version=version))
    code, got = fault(resp)
    assert code == 400 and (message is None or got.endswith(message)), got
    assert transfer_rows(seeded) == [] and _status(seeded, volume.id) == 'available'


def test_unknown_or_foreign_volume_is_404(kclient, seeded, conf):
    theirs = owned_volume(seeded, conf, project=TAKER)
    for volume_id in (UUID, theirs.id):
        assert fault(create(kclient, volume_id, headers=member())) == (
            404, f'Volume {volume_id} could not be found.')
    assert transfer_rows(seeded) == [] and _status(seeded, theirs.id) == 'available'


def test_readers_list_and_show_but_cannot_offer(kclient, seeded, conf):
    volume = owned_volume(seeded, conf)
    transfer_id = create(kclient, volume.id, headers=member()).json['transfer']['id']
    reader = member(roles='reader')
    assert fault(create(kclient, volume.id, headers=reader)) == (
        403, "Policy doesn't allow volume:create_transfer to be performed.")
    assert kclient.simulate_get(f'/v3/volume-transfers/{transfer_id}',
                                headers=reader).status_code == 200
    assert fault(kclient.simulate_delete(f'/v3/volume-transfers/{transfer_id}',
                                         headers=reader)) == (
        403, "Policy doesn't allow volume:delete_transfer to be performed.")
    assert len(transfer_rows(seeded)) == 1


def test_delete_returns_the_volume_and_hides_the_transfer(kclient, seeded, conf):
    volume = owned_volume(seeded, conf)
    transfer_id = create(kclient, volume.id, headers=member()).json['transfer']['id']
    assert fault(kclient.simulate_delete(f'/v3/volume-transfers/{transfer_id}',
                                         headers=taker())) == (
        404, f'Transfer {transfer_id} could not be found.')
    assert _status(seeded, volume.id) == 'awaiting-transfer'
    resp = kclient.simulate_delete(f'/v3/os-volume-transfer/{transfer_id}', headers=member())
    assert resp.status_code == 202 and _status(seeded, volume.id) == 'available'
    for method in (kclient.simulate_get, kclient.simulate_delete):
        assert fault(method(f'/v3/volume-transfers/{transfer_id}', headers=member())) == (
            404, f'Transfer {transfer_id} could not be found.')
    assert transfer_rows(seeded)[0].deleted is True


def test_notifications_of_create_and_delete(conf, seeded):
    conf.set_override('driver', ['test'], group='oslo_messaging_notifications')
    conf.set_override('auth_strategy', 'keystone')
    _impl_test.reset()
    client = testing.TestClient(create_app(conf, db=seeded, use_auth_token=False))
    volume = owned_volume(seeded, conf)
    transfer_id = create(client, volume.id, headers=member()).json['transfer']['id']
    client.simulate_delete(f'/v3/volume-transfers/{transfer_id}', headers=member())
    sent = [(m['event_type'], m['publisher_id'], m['payload']['volume_id'])
            for _ctx, m, _prio, _retry in _impl_test.NOTIFICATIONS]
    assert sent == [(f'volume.transfer.{event}', f'volume.{conf.host}', volume.id) for event in
                    ('create.start', 'create.end', 'delete.start', 'delete.end')]
