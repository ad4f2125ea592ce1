"""/types/{id}/extra_specs: reading by policy, writing with Cinder's checks, notifications."""

import pytest
from falcon import testing
from oslo_messaging.notify import _impl_test

from cinderlike.api.app import create_app
from cinderlike.db import volume_types as db_types
from tests.unit.api.type_fixtures import ADMIN, add_volume, seed_default, user

SPECS = '/v3/types/{}/extra_specs'


@pytest.fixture
def gold(db):
    seed_default(db)
    return db_types.create(db, name='gold', extra_specs={'volume_backend_name': 'lvm',
                                                         'multiattach': '<is> True'})


def _specs(db, type_id):
    return db_types.get_extra_specs(db, type_id=type_id)


def test_index_and_show_by_policy(client, keystone_client, gold):
    url = SPECS.format(gold.id)
    assert client.simulate_get(url, headers=ADMIN).json == {'extra_specs': {
        'volume_backend_name': 'lvm', 'multiattach': '<is> True'}}
    assert keystone_client.simulate_get(url, headers=user()).json == {
        'extra_specs': {'multiattach': '<is> True'}}
    assert client.simulate_get(url + '/volume_backend_name', headers=ADMIN).json == {
        'volume_backend_name': 'lvm'}
    hidden = keystone_client.simulate_get(url + '/volume_backend_name', headers=user())
    assert hidden.status_code == 404
    assert hidden.json['itemNotFound']['message'] == (
        f'Volume Type {gold.id} has no extra specs with key volume_backend_name.')


def test_index_of_unknown_type_is_404(client, db):
    resp = client.simulate_get(SPECS.format('nope'), headers=ADMIN)
    assert resp.json == {'itemNotFound': {'code': 404,
                                          'message': 'Volume type nope could not be found.'}}


def test_create_merges_and_answers_the_body(client, db, gold):
    body = {'extra_specs': {'volume_backend_name': 'nfs', 'thin': '<is> True'}}
    resp = client.simulate_post(SPECS.format(gold.id), headers=ADMIN, json=body)
    assert resp.status_code == 200
    assert resp.json == body
    assert _specs(db, gold.id) == {'volume_backend_name': 'nfs', 'multiattach': '<is> True',
                                   'thin': '<is> True'}


def test_update_one_key(client, db, gold):
    resp = client.simulate_put(SPECS.format(gold.id) + '/thin', headers=ADMIN,
                               json={'thin': 'yes'})
    assert resp.status_code == 200
    assert resp.json == {'thin': 'yes'}
    assert _specs(db, gold.id)['thin'] == 'yes'


@pytest.mark.parametrize('path, body, message', [
    ('', {'extra_specs': {'has space': 'v'}}, None),
    ('', {'extra_specs': {'k': 'v' * 256}}, None),
    ('', {'specs': {}}, None),
    ('/a', {'b': 'v'}, 'Request body and URI mismatch'),
    ('/a', {'a': 'v', 'b': 'w'}, None),
    ('/a', {}, None),
    ('', {'extra_specs': {'cacheable': '<is> True'}},
     'cacheable cannot be set with multiattach.'),
])
def test_bad_writes_are_400_and_change_nothing(client, db, gold, path, body, message):
    before = _specs(db, gold.id)
    method = client.simulate_post if not path else client.simulate_put
    resp = method(SPECS.format(gold.id) + path, headers=ADMIN, json=body)
    assert resp.status_code == 400
    if message:
        assert resp.json['badRequest']['message'] == message
    assert _specs(db, gold.id) == before


def test_specs_of_a_type_in_use_are_frozen(client, db, gold):
    add_volume(db, gold.id)
    for resp in (client.simulate_post(SPECS.format(gold.id), headers=ADMIN,
                                      json={'extra_specs': {'a': 'b'}}),
                 client.simulate_delete(SPECS.format(gold.id) + '/multiattach', headers=ADMIN)):
        assert resp.json == {'badRequest': {'code': 400,
                                            'message': 'Volume Type is currently in use.'}}
    assert _specs(db, gold.id) == {'volume_backend_name': 'lvm', 'multiattach': '<is> True'}


def test_delete(client, db, gold):
    url = SPECS.format(gold.id) + '/volume_backend_name'
    assert client.simulate_delete(url, headers=ADMIN).status_code == 202
    assert _specs(db, gold.id) == {'multiattach': '<is> True'}
    resp = client.simulate_delete(url, headers=ADMIN)
    assert resp.status_code == 404
    assert resp.json['itemNotFound']['message'] == (
        f'Volume Type {gold.id} has no extra specs with key volume_backend_name.')


def test_non_admin_cannot_write(keystone_client, db, gold):
    resp = keystone_client.simulate_post(SPECS.format(gold.id), headers=user(),
                                         json={'extra_specs': {'a': 'b'}})
    assert resp.status_code == 403
    assert 'volume_extension:types_extra_specs:create' in resp.json['forbidden']['message']
    assert 'a' not in _specs(db, gold.id)


def test_changes_are_notified(conf, db):
    conf.set_override('driver', ['test'], group='oslo_messaging_notifications')
    client = testing.TestClient(create_app(conf, db=db))
    _impl_test.reset()
    seed_default(db)
    created = client.simulate_post('/v3/types', headers=ADMIN,
                                   json={'volume_type': {'name': 'gold'}}).json['volume_type']
    client.simulate_post(SPECS.format(created['id']), headers=ADMIN,
                         json={'extra_specs': {'a': 'b'}})
    client.simulate_delete(SPECS.format(created['id']) + '/a', headers=ADMIN)
    client.simulate_delete(f"/v3/types/{created['id']}", headers=ADMIN)
    sent = [(m['publisher_id'].split('.')[0], m['event_type'], m['priority'])
            for _ctx, m, _prio, _retry in _impl_test.NOTIFICATIONS]
    assert sent == [('volumeType', 'volume_type.create', 'INFO'),
                    ('volumeTypeExtraSpecs', 'volume_type_extra_specs.create', 'INFO'),
                    ('volumeTypeExtraSpecs', 'volume_type_extra_specs.delete', 'INFO'),
                    ('volumeType', 'volume_type.delete', 'INFO')]
    payload = _impl_test.NOTIFICATIONS[0][1]['payload']['volume_types']
    assert payload['name'] == 'gold' and payload['id'] == created['id']
