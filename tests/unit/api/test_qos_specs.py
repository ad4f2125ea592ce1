"""/qos-specs: create, list, show, set keys, delete_keys and delete, as Cinder's
qos_specs_manage answers them; every refusal with Cinder's fault body and nothing written.
"""

import pytest
import sqlalchemy as sa

from cinderlike.db import qos_specs as db_qos
from cinderlike.db import volume_types as db_types
from cinderlike.db.models import QualityOfServiceSpecs, VolumeType
from tests.unit.api.type_fixtures import ADMIN, user

QOS = '/v3/qos-specs'
BASE = 'http://falconframework.org'
CONSUMERS_TEXT = ("Invalid qos specs: Valid consumer of QoS specs are: QoSConsumerValues("
                  "default=<class 'oslo_versionedobjects.fields.UnspecifiedDefault'>,"
                  "nullable=False,valid_values=('back-end', 'front-end', 'both'))")
MISSING = '9b3a0a4c-1111-4e2e-9a5f-000000000000'


def rows(db):
    """Every QoS row and every type's association: what a refusal must leave unchanged."""
    with db.reader() as session:
        qos = session.execute(sa.select(
            QualityOfServiceSpecs.id, QualityOfServiceSpecs.specs_id, QualityOfServiceSpecs.key,
            QualityOfServiceSpecs.value, QualityOfServiceSpecs.deleted,
            QualityOfServiceSpecs.updated_at).order_by(QualityOfServiceSpecs.id)).all()
        types = session.execute(sa.select(VolumeType.id, VolumeType.qos_specs_id,
                                          VolumeType.updated_at).order_by(VolumeType.id)).all()
    return qos, types


def fault(resp, code, message):
    name = {400: 'badRequest', 403: 'forbidden', 404: 'itemNotFound',
            409: 'conflictingRequest'}[code]
    assert (resp.status_code, resp.json) == (code, {name: {'code': code, 'message': message}})


@pytest.fixture
def gold(db):
    return db_qos.create(db, name='gold', consumer='front-end',
                         specs={'total_iops_sec': '500', 'read_bytes_sec': '1024'})


def _create(client, specs, headers=ADMIN):
    return client.simulate_post(QOS, headers=headers, json={'qos_specs': specs})


def test_create_answers_specs_and_links(client, db):
    resp = client.simulate_post('/v3/admin/qos-specs', headers=ADMIN, json={'qos_specs': {
        'name': '  gold  ', 'consumer': 'both', 'total_iops_sec': '500', 'burst': None}})
    assert resp.status_code == 200
    specs_id = resp.json['qos_specs']['id']
    assert resp.json == {
        'qos_specs': {'id': specs_id, 'name': 'gold', 'consumer': 'both',
                      'specs': {'total_iops_sec': '500', 'burst': None}},
        'links': [{'rel': 'self', 'href': f'{BASE}/v3/admin/qos-specs/{specs_id}'},
                  {'rel': 'bookmark', 'href': f'{BASE}/admin/qos-specs/{specs_id}'}]}
    record = db_qos.get(db, specs_id=specs_id)
    assert (record.name, record.consumer, record.specs) == (
        'gold', 'both', {'total_iops_sec': '500', 'burst': None})


def test_create_defaults_to_back_end_and_allows_any_key(client, db):
    resp = _create(client, {'name': 'plain', 'odd*key': 'v'})
    assert resp.json['qos_specs']['consumer'] == 'back-end'
    assert resp.json['qos_specs']['specs'] == {'odd*key': 'v'}


def test_create_duplicate_name_is_409(client, db, gold):
    before = rows(db)
    fault(_create(client, {'name': ' gold', 'k': 'v'}), 409, 'QoS Specs gold already exists.')
    assert rows(db) == before


@pytest.mark.parametrize('body, message', [
    (None, "None is not of type 'object'"),
    ({'name': 'x'}, "'qos_specs' is a required property"),
    ({'qos_specs': {'name': 'x'}, 'other': 1},
     "Additional properties are not allowed ('other' was unexpected)"),
    ({'qos_specs': 'x'},
     "Invalid input for field/attribute qos_specs. Value: x. 'x' is not of type 'object'"),
    ({'qos_specs': {}},
     "Invalid input for field/attribute qos_specs. Value: {}. 'name' is a required property"),
    ({'qos_specs': {'name': 5}},
     "Invalid input for field/attribute name. Value: 5. 5 is not of type 'string'"),
    ({'qos_specs': {'name': ''}}, "An invalid 'name' value was provided. The 'name' can not "
                                  "be None."),
    ({'qos_specs': {'name': '   '}}, "An invalid 'name' value was provided. The 'name' can "
                                     "not be empty."),
    ({'qos_specs': {'name': 'n' * 256}}, "An invalid 'name' value was provided. The 'name' "
                                         "can not be greater than 255 characters."),
    ({'qos_specs': {'name': 'x', 'consumer': 'sideways'}}, CONSUMERS_TEXT),
    ({'qos_specs': {'name': 'x', 'consumer': ''}}, CONSUMERS_TEXT),
    ({'qos_specs': {'name': 'x', 'total_iops_sec': 500}},
     'Invalid input received: Value for key "total_iops_sec" is not a string or unicode'),
    ({'qos_specs': {'name': 'x', 'k': 'v' * 256}},
     'Invalid input received: Value for key "k" has 256 characters, more than 255.'),
    ({'qos_specs': {'name': 'x', '': 'v'}},
     'Invalid input received: Key "" has 0 characters, less than 1.'),
    ({'qos_specs': {'name': 'x', 'k' * 256: 'v'}},
     f'Invalid input received: Key "{"k" * 256}" has 256 characters, more than 255.'),
])
def test_create_bad_input_is_400_and_writes_nothing(client, db, gold, body, message):
    before = rows(db)
    fault(client.simulate_post(QOS, headers=ADMIN, json=body), 400, message)
    assert rows(db) == before


def test_create_malformed_json_is_400(client, db):
    resp = client.simulate_post(QOS, headers=ADMIN, body='{"qos_specs": ',
                                content_type='application/json')
    fault(resp, 400, 'Malformed request body')
    assert rows(db) == ([], [])


def test_show(client, db, gold):
    resp = client.simulate_get(f'{QOS}/{gold.id}', headers=ADMIN)
    assert resp.json == {
        'qos_specs': {'id': gold.id, 'name': 'gold', 'consumer': 'front-end',
                      'specs': {'total_iops_sec': '500', 'read_bytes_sec': '1024'}},
        'links': [{'rel': 'self', 'href': f'{BASE}/v3/admin/qos-specs/{gold.id}'},
                  {'rel': 'bookmark', 'href': f'{BASE}/admin/qos-specs/{gold.id}'}]}


@pytest.mark.parametrize('path', [f'{QOS}/{MISSING}', f'{QOS}/{MISSING}/associations'])
def test_unknown_specs_is_404(client, db, path):
    fault(client.simulate_get(path, headers=ADMIN), 404, f'No such QoS spec {MISSING}.')


def test_a_spec_row_is_no_qos_specs(client, db, gold):
    with db.reader() as session:
        child = session.scalar(sa.select(QualityOfServiceSpecs.id).where(
            QualityOfServiceSpecs.specs_id == gold.id).limit(1))
    fault(client.simulate_get(f'{QOS}/{child}', headers=ADMIN), 404,
          f'No such QoS spec {child}.')


def _listed(client, query=''):
    resp = client.simulate_get(QOS, query_string=query, headers=ADMIN)
    assert resp.status_code == 200, resp.json
    return resp.json


def test_list_is_newest_first_without_links(client, db, gold):
    silver = db_qos.create(db, name='silver')
    assert _listed(client) == {'qos_specs': [
        {'id': silver.id, 'name': 'silver', 'consumer': 'back-end', 'specs': {}},
        {'id': gold.id, 'name': 'gold', 'consumer': 'front-end',
         'specs': {'total_iops_sec': '500', 'read_bytes_sec': '1024'}}]}


def test_list_pages_with_limit_marker_offset_and_sort(client, db):
    made = [db_qos.create(db, name=name) for name in ('c', 'a', 'b')]
    first = _listed(client, 'limit=2&sort=value:asc')
    assert [s['name'] for s in first['qos_specs']] == ['a', 'b']
    assert first['qos_specs_links'] == [{'rel': 'next', 'href': (
        f'{BASE}/v3/admin/qos-specs?limit=2&sort=value%3Aasc&marker={made[2].id}')}]
    rest = _listed(client, f'limit=2&sort=value:asc&marker={made[2].id}')
    assert ([s['name'] for s in rest['qos_specs']], 'qos_specs_links' in rest) == (['c'], False)
    assert [s['name'] for s in _listed(client, 'offset=1')['qos_specs']] == ['a', 'c']
    assert [s['name'] for s in _listed(client, 'sort_key=value&sort_dir=desc')[
        'qos_specs']] == ['c', 'b', 'a']


def test_list_filters_on_root_columns_as_cinder(client, db, gold):
    db_qos.create(db, name='silver')
    assert [s['id'] for s in _listed(client, f'id={gold.id}')['qos_specs']] == [gold.id]
    assert [s['name'] for s in _listed(client, 'value=silver')['qos_specs']] == ['silver']
    assert [s['name'] for s in _listed(client, 'value=gold&value=silver')['qos_specs']] == [
        'silver']
    # `name` and `consumer` are no columns of the table: Cinder finds nothing.
    assert _listed(client, 'name=gold') == {'qos_specs': []}
    assert _listed(client, 'consumer=front-end') == {'qos_specs': []}


@pytest.mark.parametrize('query, code, message', [
    (f'marker={MISSING}', 404, f'No such QoS spec {MISSING}.'),
    ('limit=x', 400, 'limit param must be an integer'),
    ('limit=-1', 400, 'limit param must be positive'),
    ('offset=-1', 400, 'Invalid input received: offset must be >= 0 and <= 2147483647.'),
    ('sort=value:sideways', 400,
     "Invalid input received: Unknown sort direction, must be 'desc' or 'asc'"),
])
def test_list_bad_paging_is_refused(client, db, gold, query, code, message):
    fault(client.simulate_get(QOS, query_string=query, headers=ADMIN), code, message)


def test_list_sort_on_no_column_is_400(client, db, gold):
    resp = client.simulate_get(QOS, query_string='sort=name', headers=ADMIN)
    assert resp.status_code == 400
    assert resp.json['badRequest']['message'].startswith(
        'Invalid input received: Invalid sort key')


def _put(client, specs_id, body):
    return client.simulate_put(f'{QOS}/{specs_id}', headers=ADMIN, json=body)


def test_set_keys_answers_the_body_and_writes_changes_only(client, db, gold):
    before = {row.key: row.updated_at for row in _children(db, gold.id)}
    body = {'qos_specs': {'total_iops_sec': '500', 'read_bytes_sec': '2048', 'new': None,
                          'consumer': 'back-end', 'name': 'a spec called name'}}
    resp = _put(client, gold.id, body)
    assert (resp.status_code, resp.json) == (200, body)
    record = db_qos.get(db, specs_id=gold.id)
    assert (record.name, record.consumer) == ('gold', 'back-end')
    # As in Cinder, a new key set to null is not stored.
    assert record.specs == {'total_iops_sec': '500', 'read_bytes_sec': '2048',
                            'name': 'a spec called name'}
    after = {row.key: row.updated_at for row in _children(db, gold.id)}
    assert after['total_iops_sec'] == before['total_iops_sec'] is None
    assert after['read_bytes_sec'] is not None and after['consumer'] is not None
    assert record.updated_at == max(stamp for stamp in after.values() if stamp)


def test_set_null_consumer_is_back_end_and_null_values_stay(client, db, gold):
    body = {'qos_specs': {'consumer': None, 'total_iops_sec': None}}
    assert _put(client, gold.id, body).status_code == 200
    record = db_qos.get(db, specs_id=gold.id)
    assert (record.consumer, record.specs) == (
        'back-end', {'total_iops_sec': None, 'read_bytes_sec': '1024'})


def _children(db, specs_id):
    with db.reader() as session:
        return session.execute(sa.select(QualityOfServiceSpecs).where(
            QualityOfServiceSpecs.specs_id == specs_id,
            QualityOfServiceSpecs.deleted.is_(False))).scalars().all()


@pytest.mark.parametrize('body, message', [
    ({'specs': {}}, "'qos_specs' is a required property"),
    ({'qos_specs': {}, 'specs': {}},
     "Additional properties are not allowed ('specs' was unexpected)"),
    ({'qos_specs': ['a']},
     "Invalid input for field/attribute qos_specs. Value: ['a']. ['a'] is not of type "
     "'object'"),
    ({'qos_specs': {'bad*key': 'v'}},
     "Invalid input for field/attribute qos_specs. Value: {'bad*key': 'v'}. 'bad*key' does "
     "not match any of the regexes: '^[a-zA-Z0-9-_:. /]{1,255}$'"),
    ({'qos_specs': {'k': 1}},
     "Invalid input for field/attribute k. Value: 1. 1 is not of type 'string', 'null'"),
    ({'qos_specs': {'k': 'v' * 256}},
     f"Invalid input for field/attribute k. Value: {'v' * 256}. '{'v' * 256}' is too long"),
    ({'qos_specs': {'consumer': 'sideways'}}, CONSUMERS_TEXT),
])
def test_set_keys_bad_input_is_400_and_writes_nothing(client, db, gold, body, message):
    before = rows(db)
    fault(_put(client, gold.id, body), 400, message)
    assert rows(db) == before


def test_set_keys_of_unknown_specs_is_404(client, db):
    fault(_put(client, MISSING, {'qos_specs': {'k': 'v'}}), 404, f'No such QoS spec {MISSING}.')
    assert rows(db) == ([], [])


def _unset(client, specs_id, body):
    return client.simulate_put(f'{QOS}/{specs_id}/delete_keys', headers=ADMIN, json=body)


def test_delete_keys(client, db, gold):
    resp = _unset(client, gold.id, {'keys': ['read_bytes_sec']})
    assert (resp.status_code, resp.text) == (202, '')
    assert db_qos.get(db, specs_id=gold.id).specs == {'total_iops_sec': '500'}


def test_delete_keys_stops_at_the_first_missing_key_as_cinder(client, db, gold):
    resp = _unset(client, gold.id, {'keys': ['read_bytes_sec', 'nope', 'total_iops_sec']})
    fault(resp, 404, f'QoS spec {gold.id} has no spec with key nope.')
    # Cinder keeps the deletions before the missing key and leaves the rest.
    assert db_qos.get(db, specs_id=gold.id).specs == {'total_iops_sec': '500'}


def test_delete_keys_consumer_is_no_spec(client, db, gold):
    before = rows(db)
    fault(_unset(client, gold.id, {'keys': ['consumer']}), 404,
          f'QoS spec {gold.id} has no spec with key consumer.')
    assert rows(db) == before


@pytest.mark.parametrize('body, message', [
    ({}, "'keys' is a required property"),
    ({'keys': 'total_iops_sec'},
     "Invalid input for field/attribute keys. Value: total_iops_sec. 'total_iops_sec' is "
     "not of type 'array'"),
    ({'keys': ['', None]},
     "Invalid input for field/attribute 0. Value: . '' should be non-empty"),
    ({'keys': ['total_iops_sec', 'total_iops_sec']},
     "Invalid input for field/attribute keys. Value: ['total_iops_sec', 'total_iops_sec']. "
     "['total_iops_sec', 'total_iops_sec'] has non-unique elements"),
    ({'keys': [], 'force': True}, "Additional properties are not allowed ('force' was "
                                  "unexpected)"),
])
def test_delete_keys_bad_input_is_400_and_writes_nothing(client, db, gold, body, message):
    before = rows(db)
    fault(_unset(client, gold.id, body), 400, message)
    assert rows(db) == before


def test_delete_keys_of_unknown_specs_is_404(client, db):
    fault(_unset(client, MISSING, {'keys': ['k']}), 404, f'No such QoS spec {MISSING}.')


def test_delete(client, db, gold):
    resp = client.simulate_delete(f'{QOS}/{gold.id}', headers=ADMIN)
    assert (resp.status_code, resp.text) == (202, '')
    qos, _types = rows(db)
    assert len(qos) == 4 and all(row.deleted for row in qos)
    fault(client.simulate_get(f'{QOS}/{gold.id}', headers=ADMIN), 404,
          f'No such QoS spec {gold.id}.')
    fault(client.simulate_delete(f'{QOS}/{gold.id}', headers=ADMIN), 404,
          f'No such QoS spec {gold.id}.')


def test_delete_in_use_needs_force(client, db, gold):
    vtype = db_types.create(db, name='fast')
    db_qos.associate(db, specs_id=gold.id, type_id=vtype.id)
    before = rows(db)
    for query in ('', 'force=false', 'force=0'):
        fault(client.simulate_delete(f'{QOS}/{gold.id}', query_string=query, headers=ADMIN),
              400, 'Qos specs still in use.')
    assert rows(db) == before
    resp = client.simulate_delete(f'{QOS}/{gold.id}', query_string='force=True', headers=ADMIN)
    assert resp.status_code == 202
    assert db_types.get(db, type_id=vtype.id).qos_specs_id is None
    assert db_qos.get_all(db) == []


def test_delete_with_bad_force_is_400(client, db, gold):
    before = rows(db)
    fault(client.simulate_delete(f'{QOS}/{gold.id}', query_string='force=maybe',
                                 headers=ADMIN),
          400, "Value 'maybe' for 'force' is not a boolean.")
    assert rows(db) == before


def test_routes_without_project_id_answer_alike(client, db, gold):
    for prefix in ('/v3/qos-specs', '/v3/admin/qos-specs'):
        assert client.simulate_get(f'{prefix}/{gold.id}', headers=ADMIN).json[
            'qos_specs']['name'] == 'gold'


@pytest.mark.parametrize('method, path, body, rule', [
    ('GET', '', None, 'get_all'),
    ('POST', '', {'qos_specs': {'name': 'x'}}, 'create'),
    ('GET', '/{id}', None, 'get'),
    ('PUT', '/{id}', {'qos_specs': {'k': 'v'}}, 'update'),
    ('DELETE', '/{id}', None, 'delete'),
    ('PUT', '/{id}/delete_keys', {'keys': ['total_iops_sec']}, 'delete'),
    ('GET', '/{id}/associations', None, 'get_all'),
    ('GET', '/{id}/associate?vol_type_id={type}', None, 'update'),
    ('GET', '/{id}/disassociate?vol_type_id={type}', None, 'update'),
    ('GET', '/{id}/disassociate_all', None, 'update'),
])
def test_every_route_is_admin_only(keystone_client, db, gold, method, path, body, rule):
    vtype = db_types.create(db, name='fast')
    before = rows(db)
    path, _sep, query = path.format(id=gold.id, type=vtype.id).partition('?')
    resp = keystone_client.simulate_request(method, QOS + path, query_string=query,
                                            headers=user('reader,member,creator'), json=body)
    fault(resp, 403,
          f"Policy doesn't allow volume_extension:qos_specs_manage:{rule} to be performed.")
    assert rows(db) == before
