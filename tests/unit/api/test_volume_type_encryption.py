"""/types/{id}/encryption: Cinder's fields, the in-use rule, every refused input (nothing
written), admin-only policies and the notifications."""

import pytest
from falcon import testing
from oslo_messaging.notify import _impl_test

from cinderlike.api.app import create_app
from cinderlike.db import encryption as db_encryption
from cinderlike.db import volume_types as db_types
from tests.unit.api.type_fixtures import ADMIN, add_volume, seed_default, user
from tests.unit.api.volume_fixtures import fault

URL = '/v3/types/{}/encryption'
LUKS = {'provider': 'luks', 'cipher': 'aes-xts-plain64', 'key_size': 256,
        'control_location': 'front-end'}


@pytest.fixture
def gold(db):
    seed_default(db)
    return db_types.create(db, name='gold')


@pytest.fixture
def nclient(conf, db):
    """An admin client whose notifications land in _impl_test.NOTIFICATIONS."""
    conf.set_override('driver', ['test'], group='oslo_messaging_notifications')
    _impl_test.reset()
    yield testing.TestClient(create_app(conf, db=db))
    _impl_test.reset()


def _sent(event_type) -> list[dict]:
    return [message for _ctx, message, _prio, _retry in _impl_test.NOTIFICATIONS
            if message['event_type'] == event_type]


def _create(client, type_id, specs=None):
    return client.simulate_post(URL.format(type_id), headers=ADMIN,
                                json={'encryption': dict(specs or LUKS)})


def test_create_then_show_every_column(nclient, db, gold):
    client = nclient
    resp = _create(client, gold.id, dict(LUKS, key_size='256'))
    assert resp.status_code == 200
    record = db_encryption.get(db, type_id=gold.id)
    # key_size made an integer; the row's ids added (Cinder's db call writes them in)
    created = {**LUKS, 'volume_type_id': gold.id, 'encryption_id': record.encryption_id}
    assert resp.json == {'encryption': created}
    shown = client.simulate_get(URL.format(gold.id), headers=ADMIN).json
    assert shown == {**LUKS, 'volume_type_id': gold.id, 'encryption_id': record.encryption_id,
                     'deleted': False, 'created_at': shown['created_at'], 'updated_at': None,
                     'deleted_at': None}
    assert shown['created_at'].startswith(record.created_at.strftime('%Y-%m-%dT%H:%M:%S'))
    event = _sent('volume_type_encryption.create')
    assert event[0]['payload'] == {'type_id': gold.id, 'specs': created}
    assert event[0]['publisher_id'].startswith('volumeTypeEncryption.')


def test_an_unencrypted_type_shows_an_empty_object(client, gold):
    resp = client.simulate_get(URL.format(gold.id), headers=ADMIN)
    assert (resp.status_code, resp.json) == (200, {})


def test_show_one_key(client, gold):
    _create(client, gold.id)
    url = URL.format(gold.id)
    assert client.simulate_get(url + '/cipher', headers=ADMIN).json == {
        'cipher': 'aes-xts-plain64'}
    assert client.simulate_get(url + '/key_size', headers=ADMIN).json == {'key_size': 256}
    missing = client.simulate_get(url + '/nope', headers=ADMIN)
    assert fault(missing) == (404, f'Volume type encryption for type {gold.id} does not exist.')


def test_update_some_fields(nclient, db, gold):
    client = nclient
    _create(client, gold.id)
    resp = client.simulate_put(URL.format(gold.id) + '/any-id', headers=ADMIN,
                               json={'encryption': {'key_size': '512', 'cipher': None}})
    assert (resp.status_code, resp.json) == (200, {'encryption': {'key_size': 512,
                                                                   'cipher': None}})
    record = db_encryption.get(db, type_id=gold.id)
    assert (record.key_size, record.cipher, record.provider) == (512, None, 'luks')
    assert record.updated_at is not None
    event = _sent('volume_type_encryption.update')
    assert event[0]['payload'] == {'type_id': gold.id, 'id': 'any-id'}


def test_an_update_echoes_integers_past_64_bits_it_does_not_store(client, db, gold):
    """Found by schemathesis: the answer echoes the body's own keys, and orjson refuses
    integers past 64 bits (was a 500 with no body)."""
    _create(client, gold.id)
    body = {'encryption': {'cipher': 'aes-cbc', 'extra': [-28248751254032490496, 2 ** 70]}}
    resp = client.simulate_put(URL.format(gold.id) + '/k', headers=ADMIN, json=body)
    assert (resp.status_code, resp.json) == (200, body)
    assert db_encryption.get(db, type_id=gold.id).cipher == 'aes-cbc'


def test_delete_then_create_again(client, db, gold):
    _create(client, gold.id)
    resp = client.simulate_delete(URL.format(gold.id) + '/x', headers=ADMIN)
    assert resp.status_code == 202
    assert db_encryption.get(db, type_id=gold.id) is None
    assert client.simulate_get(URL.format(gold.id), headers=ADMIN).json == {}
    assert _create(client, gold.id).status_code == 200


def test_only_the_spec_fields_are_stored(client, db, gold):
    other = db_types.create(db, name='other')
    body = dict(LUKS, volume_type_id=other.id, encryption_id='mine', extra='kept')
    resp = _create(client, gold.id, body)
    record = db_encryption.get(db, type_id=gold.id)
    # echoed as Cinder does, with the ids of the row actually written
    assert resp.json == {'encryption': dict(body, volume_type_id=gold.id,
                                            encryption_id=record.encryption_id)}
    assert record.encryption_id != 'mine'
    assert db_encryption.get(db, type_id=other.id) is None


def test_deleting_the_type_deletes_its_encryption(client, db, gold):
    _create(client, gold.id)
    assert client.simulate_delete(f'/v3/types/{gold.id}', headers=ADMIN).status_code == 202
    assert db_encryption.get(db, type_id=gold.id) is None


@pytest.mark.parametrize('body, message', [
    ({}, "'encryption' is a required property"),
    ({'encryption': {'provider': 'luks'}},
     "Invalid input for field/attribute encryption. Value: {'provider': 'luks'}. "
     "'control_location' is a required property"),
    ({'encryption': dict(LUKS, control_location='middle')},
     "Invalid input for field/attribute control_location. Value: middle. 'middle' is not "
     "one of ['front-end', 'back-end']"),
    ({'encryption': dict(LUKS, key_size='big')},
     'Invalid input received: key_size must be an integer.'),
    ({'encryption': dict(LUKS, key_size=-1)},
     'Invalid input for field/attribute key_size. Value: -1. -1 is less than the minimum '
     'of 0'),
    ({'encryption': dict(LUKS, key_size=2 ** 31)},
     'Invalid input for field/attribute key_size. Value: 2147483648. 2147483648 is greater '
     'than the maximum of 2147483647'),
    ({'encryption': dict(LUKS, key_size='-99999999999')},
     'Invalid input received: Error writing field to database'),
    ({'encryption': dict(LUKS, provider='p' * 256)}, None),
    ({'encryption': dict(LUKS, cipher=5)},
     "Invalid input for field/attribute cipher. Value: 5. 5 is not of type 'string', 'null'"),
    ({'encryption': LUKS, 'other': 1},
     "Additional properties are not allowed ('other' was unexpected)"),
    ({'encryption': 'luks'},
     "Invalid input for field/attribute encryption. Value: luks. 'luks' is not of type "
     "'object'"),
], ids=['no-encryption', 'no-control_location', 'bad-location', 'key_size-text',
        'key_size-negative', 'key_size-too-big', 'key_size-text-out-of-range',
        'provider-too-long', 'cipher-number', 'extra-key', 'not-object'])
def test_bad_create_bodies_are_400_and_write_nothing(client, db, gold, body, message):
    resp = client.simulate_post(URL.format(gold.id), headers=ADMIN, json=body)
    code, text = fault(resp)
    assert code == 400
    if message is not None:
        assert text == message
    assert db_encryption.get(db, type_id=gold.id) is None


def test_bad_update_body_is_400_and_changes_nothing(client, db, gold):
    _create(client, gold.id)
    resp = client.simulate_put(URL.format(gold.id) + '/x', headers=ADMIN,
                               json={'encryption': {'control_location': 'elsewhere'}})
    assert fault(resp)[0] == 400
    assert db_encryption.get(db, type_id=gold.id).control_location == 'front-end'


def test_create_twice_is_400(client, db, gold):
    _create(client, gold.id)
    assert fault(_create(client, gold.id, dict(LUKS, provider='other'))) == (
        400, f'Volume type encryption for type {gold.id} already exists.')
    assert db_encryption.get(db, type_id=gold.id).provider == 'luks'


def test_unknown_type_is_404(client, db, gold):
    expected = (404, 'Volume type nope could not be found.')
    assert fault(client.simulate_get(URL.format('nope'), headers=ADMIN)) == expected
    assert fault(client.simulate_get(URL.format('nope') + '/cipher', headers=ADMIN)) == expected
    assert fault(_create(client, 'nope')) == expected
    assert fault(client.simulate_put(URL.format('nope') + '/x', headers=ADMIN,
                                     json={'encryption': {}})) == expected


def test_update_or_delete_without_encryption_is_404(client, gold):
    message = (404, f'Volume type encryption for type {gold.id} does not exist.')
    assert fault(client.simulate_put(URL.format(gold.id) + '/x', headers=ADMIN,
                                     json={'encryption': {'key_size': 1}})) == message
    assert fault(client.simulate_delete(URL.format(gold.id) + '/x', headers=ADMIN)) == message


@pytest.mark.parametrize('verb', ['create', 'update', 'delete'])
def test_a_type_in_use_is_refused(client, db, gold, verb):
    if verb != 'create':
        _create(client, gold.id)
    before = db_encryption.get(db, type_id=gold.id)
    add_volume(db, gold.id)
    url = URL.format(gold.id)
    resp = {'create': lambda: _create(client, gold.id),
            'update': lambda: client.simulate_put(url + '/x', headers=ADMIN,
                                                  json={'encryption': {'key_size': 1}}),
            'delete': lambda: client.simulate_delete(url + '/x', headers=ADMIN)}[verb]()
    assert fault(resp) == (400, f'Cannot {verb} encryption specs. Volume type in use.')
    assert db_encryption.get(db, type_id=gold.id) == before


def test_non_admins_are_refused(keystone_client, db, gold):
    db_encryption.create(db, type_id=gold.id, specs=LUKS)
    member = user('reader,member')
    url = URL.format(gold.id)
    for resp, rule in (
            (keystone_client.simulate_get(url, headers=member), 'get'),
            (keystone_client.simulate_get(url + '/cipher', headers=member), 'get'),
            (keystone_client.simulate_post(url, headers=member, json={'encryption': LUKS}),
             'create'),
            (keystone_client.simulate_put(url + '/x', headers=member,
                                          json={'encryption': {'key_size': 1}}), 'update'),
            (keystone_client.simulate_delete(url + '/x', headers=member), 'delete')):
        assert fault(resp) == (403, "Policy doesn't allow "
                                    f'volume_extension:volume_type_encryption:{rule} to be '
                                    'performed.')
    assert db_encryption.get(db, type_id=gold.id).key_size == 256
