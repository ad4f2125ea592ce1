"""/qos-specs/{id}/associate, disassociate, disassociate_all and associations, the types'
qos_specs_id, and the qos_specs.* notifications, as Cinder sends them.
"""

import pytest
import sqlalchemy as sa
from falcon import testing
from oslo_messaging.notify import _impl_test

from cinderlike.api.app import create_app
from cinderlike.db import qos_specs as db_qos
from cinderlike.db import volume_types as db_types
from cinderlike.db.models import QualityOfServiceSpecs, VolumeType
from tests.unit.api.test_qos_specs import MISSING, QOS, fault, rows
from tests.unit.api.type_fixtures import ADMIN, PROJECT, user


@pytest.fixture
def gold(db):
    return db_qos.create(db, name='gold', consumer='front-end', specs={'total_iops_sec': '500'})


@pytest.fixture
def silver(db):
    return db_qos.create(db, name='silver')


@pytest.fixture
def fast(db):
    return db_types.create(db, name='fast')


def _act(client, specs_id, action, type_id=None):
    query = '' if type_id is None else f'vol_type_id={type_id}'
    return client.simulate_get(f'{QOS}/{specs_id}/{action}', query_string=query, headers=ADMIN)


def _qos_of(db, type_id):
    return db_types.get(db, type_id=type_id).qos_specs_id


def test_associate_and_list_associations(client, db, gold, fast):
    other = db_types.create(db, name='other')
    assert client.simulate_get(f'{QOS}/{gold.id}/associations', headers=ADMIN).json == {
        'qos_associations': []}
    for vtype in (fast, other):
        resp = _act(client, gold.id, 'associate', vtype.id)
        assert (resp.status_code, resp.text) == (202, '')
    assert client.simulate_get(f'{QOS}/{gold.id}/associations', headers=ADMIN).json == {
        'qos_associations': [
            {'association_type': 'volume_type', 'name': 'fast', 'id': fast.id},
            {'association_type': 'volume_type', 'name': 'other', 'id': other.id}]}


def test_associate_again_with_the_same_specs_changes_nothing(client, db, gold, fast):
    db_qos.associate(db, specs_id=gold.id, type_id=fast.id)
    before = rows(db)
    assert _act(client, gold.id, 'associate', fast.id).status_code == 202
    assert rows(db) == before


def test_a_type_takes_one_qos_specs(client, db, gold, silver, fast):
    db_qos.associate(db, specs_id=gold.id, type_id=fast.id)
    before = rows(db)
    fault(_act(client, silver.id, 'associate', fast.id), 400,
          f'Invalid volume type: Type {fast.id} is already associated with another qos '
          f'specs: {gold.id}')
    assert rows(db) == before


def test_a_type_pointing_at_deleted_specs_is_free_as_in_cinder(client, db, gold, silver, fast):
    # A dangling pointer, as Cinder's unlocked delete could leave behind.
    with db.writer() as session:
        session.execute(sa.update(VolumeType).where(VolumeType.id == fast.id).values(
            qos_specs_id=gold.id))
        session.execute(sa.update(QualityOfServiceSpecs).where(sa.or_(
            QualityOfServiceSpecs.id == gold.id, QualityOfServiceSpecs.specs_id == gold.id))
            .values(deleted=True))
    assert db_qos.get_for_type(db, type_id=fast.id) == {'qos_specs': None}
    assert _act(client, silver.id, 'associate', fast.id).status_code == 202
    assert _qos_of(db, fast.id) == silver.id


@pytest.mark.parametrize('action', ['associate', 'disassociate'])
@pytest.mark.parametrize('query', ['', 'vol_type_id='])
def test_no_type_id_is_400(client, db, gold, fast, action, query):
    before = rows(db)
    resp = client.simulate_get(f'{QOS}/{gold.id}/{action}', query_string=query, headers=ADMIN)
    fault(resp, 400, 'Volume Type id must not be None.')
    # Cinder checks the type id before it looks for the specs.
    resp = client.simulate_get(f'{QOS}/{MISSING}/{action}', query_string=query, headers=ADMIN)
    fault(resp, 400, 'Volume Type id must not be None.')
    assert rows(db) == before


@pytest.mark.parametrize('action', ['associate', 'disassociate'])
def test_unknown_or_deleted_type_is_404(client, db, gold, fast, action):
    db_types.create(db, name='__DEFAULT__')
    db_types.destroy(db, type_id=fast.id, conf_default_name='__DEFAULT__')
    before = rows(db)
    for type_id in (MISSING, fast.id, 'not-a-uuid'):
        fault(_act(client, gold.id, action, type_id), 404,
              f'Volume type {type_id} could not be found.')
    assert rows(db) == before


@pytest.mark.parametrize('action', ['associate', 'disassociate', 'disassociate_all'])
def test_unknown_specs_is_404(client, db, fast, action):
    fault(_act(client, MISSING, action, None if action == 'disassociate_all' else fast.id),
          404, f'No such QoS spec {MISSING}.')
    assert _qos_of(db, fast.id) is None


def test_disassociate(client, db, gold, silver, fast):
    other = db_types.create(db, name='other')
    db_qos.associate(db, specs_id=gold.id, type_id=fast.id)
    db_qos.associate(db, specs_id=silver.id, type_id=other.id)
    before = rows(db)
    # A type using other specs (or none) is left as it is.
    assert _act(client, gold.id, 'disassociate', other.id).status_code == 202
    assert rows(db) == before
    resp = _act(client, gold.id, 'disassociate', fast.id)
    assert (resp.status_code, resp.text) == (202, '')
    assert (_qos_of(db, fast.id), _qos_of(db, other.id)) == (None, silver.id)


def test_disassociate_all(client, db, gold, silver, fast):
    other, third = (db_types.create(db, name=name) for name in ('other', 'third'))
    db_qos.associate(db, specs_id=gold.id, type_id=fast.id)
    db_qos.associate(db, specs_id=gold.id, type_id=other.id)
    db_qos.associate(db, specs_id=silver.id, type_id=third.id)
    resp = _act(client, gold.id, 'disassociate_all')
    assert (resp.status_code, resp.text) == (202, '')
    assert [_qos_of(db, t.id) for t in (fast, other, third)] == [None, None, silver.id]
    assert db_qos.associations(db, specs_id=gold.id) == []


def test_types_show_qos_specs_id_to_admins_only(client, keystone_client, db, gold, fast):
    db_qos.associate(db, specs_id=gold.id, type_id=fast.id)
    shown = client.simulate_get(f'/v3/types/{fast.id}', headers=ADMIN).json['volume_type']
    assert shown['qos_specs_id'] == gold.id
    listed = client.simulate_get('/v3/types', headers=ADMIN).json['volume_types']
    assert [t['qos_specs_id'] for t in listed if t['id'] == fast.id] == [gold.id]
    reader = keystone_client.simulate_get(f'/v3/{PROJECT}/types/{fast.id}',
                                          headers=user()).json['volume_type']
    assert 'qos_specs_id' not in reader


def _sent():
    return [(m['publisher_id'], m['event_type'], m['priority'], m['payload'])
            for _ctx, m, _prio, _retry in _impl_test.NOTIFICATIONS]


@pytest.fixture
def notified(conf, db):
    conf.set_override('driver', ['test'], group='oslo_messaging_notifications')
    conf.set_override('host', 'api1')
    _impl_test.reset()
    yield testing.TestClient(create_app(conf, db=db))
    _impl_test.reset()


def _stamp(value):
    return value.strftime('%Y-%m-%dT%H:%M:%S.%f')


def test_changes_are_notified_as_cinder(notified, db, fast):
    client = notified
    body = {'name': 'gold', 'consumer': 'both', 'k': 'v'}
    specs_id = client.simulate_post(QOS, headers=ADMIN, json={'qos_specs': body}).json[
        'qos_specs']['id']
    created = _stamp(db_qos.get(db, specs_id=specs_id).created_at)
    client.simulate_put(f'{QOS}/{specs_id}', headers=ADMIN, json={'qos_specs': {'k': 'w'}})
    client.simulate_put(f'{QOS}/{specs_id}/delete_keys', headers=ADMIN, json={'keys': ['k']})
    _act(client, specs_id, 'associate', fast.id)
    client.simulate_get(f'{QOS}/{specs_id}/associations', headers=ADMIN)
    _act(client, specs_id, 'disassociate', fast.id)
    _act(client, specs_id, 'disassociate_all')
    client.simulate_delete(f'{QOS}/{specs_id}', headers=ADMIN)
    sent = _sent()
    assert {publisher for publisher, *_rest in sent} == {'QoSSpecs.api1'}
    assert [(event, priority) for _pub, event, priority, _payload in sent] == [
        ('qos_specs.create', 'INFO'), ('qos_specs.update', 'INFO'),
        ('qos_specs.delete_keys', 'INFO'), ('qos_specs.associate', 'INFO'),
        ('qos_specs.associations', 'INFO'), ('qos_specs.disassociate', 'INFO'),
        ('qos_specs.disassociate_all', 'INFO'), ('qos_specs.delete', 'INFO')]
    payloads = [payload for *_rest, payload in sent]
    # Cinder's object has no created_at yet when the create is notified.
    assert payloads[0] == {'name': 'gold', 'created_at': None,
                           'specs': {'consumer': 'both', 'k': 'v'}}
    assert set(payloads[1]) == {'id', 'created_at', 'updated_at', 'specs'}
    assert (payloads[1]['created_at'], payloads[1]['specs']) == (created, {'k': 'w'})
    assert set(payloads[2]) == {'id', 'created_at', 'updated_at'}
    assert payloads[3] == {'id': specs_id, 'type_id': fast.id, 'created_at': created}
    assert payloads[4] == {'id': specs_id, 'created_at': created}
    assert payloads[5] == {'id': specs_id, 'type_id': fast.id, 'created_at': created}
    assert payloads[6] == {'id': specs_id, 'created_at': created}
    assert set(payloads[7]) == {'id', 'created_at', 'deleted_at'}


def test_refusals_are_notified_as_cinder(notified, db, gold, silver, fast):
    client = notified
    db_qos.associate(db, specs_id=gold.id, type_id=fast.id)
    client.simulate_post(QOS, headers=ADMIN, json={'qos_specs': {'name': 'gold'}})
    _act(client, silver.id, 'associate', fast.id)
    _act(client, silver.id, 'associate')
    client.simulate_delete(f'{QOS}/{gold.id}', headers=ADMIN)
    client.simulate_get(f'{QOS}/{MISSING}/disassociate_all', headers=ADMIN)
    taken = (f'Invalid volume type: Type {fast.id} is already associated with another qos '
             f'specs: {gold.id}')
    assert [(event, priority, payload) for _pub, event, priority, payload in _sent()] == [
        ('qos_specs.create', 'ERROR',
         {'name': 'gold', 'error_message': 'QoS Specs gold already exists.'}),
        # Cinder sends this one twice, and reports a missing type id as a delete.
        ('qos_specs.associate', 'ERROR', {'id': silver.id, 'error_message': taken}),
        ('qos_specs.associate', 'ERROR', {'id': silver.id, 'error_message': taken}),
        ('qos_specs.delete', 'ERROR',
         {'id': silver.id, 'error_message': 'Volume Type id must not be None.'}),
        ('qos_specs.delete', 'ERROR', {
            'id': gold.id,
            'error_message': f'QoS Specs {gold.id} is still associated with entities.'}),
        ('qos_specs.disassociate_all', 'ERROR',
         {'id': MISSING, 'error_message': f'No such QoS spec {MISSING}.'}),
    ]
