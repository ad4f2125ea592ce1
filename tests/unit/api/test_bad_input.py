"""The bad requests of issue 12 ("found when tried as a new user would"), each answered as
Cinder 29 does (a 4xx where Cinder answers 500), and nothing written when refused."""

import io
import json

import pytest
from falcon import testing

from cinderlike.api.app import create_app
from cinderlike.api.middleware import RequestBody
from cinderlike.db import default_types as db_default_types
from cinderlike.db import quotas as db_quotas
from cinderlike.db import volume_types as db_types
from tests.unit.api.type_fixtures import admin
from tests.unit.api.volume_fixtures import add_volume, fault, usages, volume_rows

UUID = '8a1d6f3c-6f00-4c6e-9a83-1f1f1f1f1f1f'
PLAIN_400 = ('The server could not comply with the request since it is either malformed or '
             'otherwise incorrect.')
NO_SUCH_ACTION = ('There is no such action: {}. Verify the request body and Content-Type '
                  'header and try again.')


def _raw_post(client, path, body: bytes, *, version=None, **headers):
    return client.simulate_post(path, body=body, headers={
        **admin(version), 'Content-Type': 'application/json', **headers})


def _nothing_written(db, rpc, before=()):
    assert [v.id for v in volume_rows(db)] == list(before)
    assert rpc.scheduler.calls == [] and rpc.volume.calls == []


# --- 5xx before ---------------------------------------------------------------

@pytest.mark.parametrize('query', ['metadata=garbage', 'metadata=[1]', 'metadata=3',
                                   "metadata={'k': 1}"])
def test_a_metadata_filter_that_is_no_dict_of_strings_matches_nothing(vclient, db, query):
    add_volume(db, project='admin')
    for path in ('/v3/volumes', '/v3/volumes/detail', '/v3/snapshots'):
        resp = vclient.simulate_get(path, query_string=query, headers=admin('3.45'))
        assert resp.status_code == 200, path
        assert next(iter(resp.json.values())) == []


@pytest.mark.parametrize('path, body, field', [
    ('/v3/os-quota-class-sets/gold', {'quota_class_set': {'volumes': '99999999999999999999'}},
     'volumes'),
    ('/v3/os-quota-class-sets/gold', {'quota_class_set': {'volumes': 99999999999999999999}},
     'volumes'),
])
def test_digit_strings_past_the_column_are_400(vclient, db, path, body, field):
    resp = vclient.simulate_put(path, json=body, headers=admin())
    (value,) = body['quota_class_set'].values()
    assert fault(resp) == (400, f'Invalid input for field/attribute {field}. Value: {value}. '
                                f'{value} is greater than the maximum of 2147483647')
    assert db_quotas.get_class_limits(db, class_name='gold') == {}


def test_a_crlf_or_nul_in_the_path_never_reaches_a_header(vclient):
    for raw in ('/v3/a\r\nSet-Cookie: x=1', '/v3/a\x00b'):
        resp = vclient.simulate_get(raw, headers={})  # noauth's token answer
        assert resp.status_code == 204
        url = resp.headers['X-Server-Management-Url']
        assert not set(url) & {'\r', '\n', '\x00'}
        assert url.endswith(('/v3/a%0D%0ASet-Cookie:%20x=1', '/v3/a%00b'))


def test_json_nested_5000_deep_is_400(vclient, db, rpc):
    deep = '{"volume": {"size": 1, "metadata": ' + '[' * 5000 + ']' * 5000 + '}}'
    assert fault(_raw_post(vclient, '/v3/volumes', deep.encode())) == (
        400, 'Malformed request body')
    _nothing_written(db, rpc)


def test_a_lone_surrogate_is_400(vclient, db, rpc):
    resp = _raw_post(vclient, '/v3/volumes', b'{"volume": {"size": 1, "name": "\\ud800"}}')
    assert fault(resp) == (400, 'Error decoding your request. Either the URL or the request '
                                'body contained characters that could not be decoded by '
                                'Cinder.')
    _nothing_written(db, rpc)
    # A proper pair is one character, and welcome.
    resp = _raw_post(vclient, '/v3/volumes', b'{"volume": {"size": 1, "name": "\\ud83d\\ude00"}}')
    assert resp.status_code == 202 and resp.json['volume']['name'] == '\U0001f600'


def test_a_default_type_for_a_300_character_project_is_400(vclient, db):
    resp = vclient.simulate_put('/v3/default-types/' + 'p' * 300, headers=admin('3.62'),
                                json={'default_type': {'volume_type': '__DEFAULT__'}})
    assert fault(resp) == (400, 'Invalid input received: project_id has 300 characters, '
                                'more than 255.')
    assert db_default_types.get(db, project_id='p' * 300) is None


# --- destructive or wrong acceptance ---------------------------------------------

@pytest.mark.parametrize('query, version', [('cascade=maybe', None), ('force=maybe', '3.23'),
                                            ('cascade=true&force=maybe', '3.23')])
def test_delete_with_a_flag_that_is_no_boolean_is_400_and_deletes_nothing(
        vclient, db, rpc, query, version):
    volume = add_volume(db)
    resp = vclient.simulate_delete(f'/v3/volumes/{volume.id}', query_string=query,
                                   headers=admin(version))
    flag = query.rsplit('&', 1)[-1].split('=')[0]
    assert fault(resp) == (400, f"Value 'maybe' for '{flag}' is not a boolean.")
    assert [(v.id, v.status) for v in volume_rows(db)] == [(volume.id, 'available')]
    assert rpc.volume.calls == []


@pytest.mark.parametrize('body, message', [('null', "None is not of type 'object'"),
                                           ('[]', "[] is not of type 'object'")])
def test_workers_cleanup_without_an_object_is_400_and_cleans_nothing(pclient, answering, body,
                                                                     message):
    resp = _raw_post(pclient, '/v3/workers/cleanup', body.encode(), version='3.24')
    assert fault(resp) == (400, message)
    assert answering.scheduler.calls == []


def test_workers_cleanup_with_an_empty_service_id_is_400(pclient, answering):
    """Found by schemathesis: '' passes the digits pattern and reached the scheduler (500)."""
    resp = pclient.simulate_post('/v3/workers/cleanup', headers=admin('3.24'),
                                 json={'service_id': '', 'cluster_name': None})
    assert fault(resp) == (400, 'Invalid input received: service_id must be an integer.')
    assert answering.scheduler.calls == []


def test_a_type_renamed_to_nothing_is_400(vclient, db):
    vtype = db_types.create(db, name='gold')
    for name in ('', '   '):
        resp = vclient.simulate_put(f'/v3/types/{vtype.id}', headers=admin(),
                                    json={'volume_type': {'name': name}})
        assert fault(resp) == (400, 'Volume type name can not be empty.')
    assert db_types.get(db, type_id=vtype.id).name == 'gold'


def test_a_body_shorter_than_its_content_length_is_400_and_creates_nothing(vclient, db, rpc):
    resp = _raw_post(vclient, '/v3/volumes', b'{"volume": {"size": 1',
                     **{'Content-Length': '100'})
    assert fault(resp) == (400, 'The request body is shorter than its Content-Length.')
    _nothing_written(db, rpc)


def _chunked(client, body: bytes, *, terminated=True):
    return client.simulate_post('/v3/volumes', headers={
        **admin(), 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked'},
        extras={'wsgi.input': io.BytesIO(body), 'wsgi.input_terminated': terminated,
                'CONTENT_LENGTH': ''})


def test_a_chunked_body_is_read_within_the_size_limit(vclient, conf, db, rpc):
    made = _chunked(vclient, b'{"volume": {"size": 1}}')
    assert made.status_code == 202
    assert [v.id for v in volume_rows(db)] == [made.json['volume']['id']]
    big = json.dumps({'volume': {'size': 1, 'description': 'x' * 200,
                                 'metadata': {f'k{i}': 'v' * 200 for i in range(600)}}})
    assert len(big) > conf.osapi_max_request_body_size
    assert fault(_chunked(vclient, big.encode())) == (413, 'Request is too large.')
    # A server that does not end the input itself cannot be read without a length.
    assert _chunked(vclient, b'{"volume": {"size": 1}}', terminated=False).status_code == 411
    assert [v.id for v in volume_rows(db)] == [made.json['volume']['id']]


@pytest.mark.parametrize('content_type', ['text/plain', 'application/xml',
                                          'application/x-www-form-urlencoded'])
def test_a_create_that_is_not_json_is_415(vclient, db, rpc, content_type):
    resp = _raw_post(vclient, '/v3/volumes', b'{"volume": {"size": 1}}',
                     **{'Content-Type': content_type})
    assert resp.status_code == 415
    assert resp.json == {'badMediaType': {'code': 415, 'message': 'Unsupported Content-Type'}}
    _nothing_written(db, rpc)


def test_json_media_types_with_parameters_are_json(vclient, db):
    for content_type in ('application/json; charset=UTF-8',
                         'application/vnd.openstack.volume+json'):
        resp = _raw_post(vclient, '/v3/volumes', b'{"volume": {"size": 1}}',
                         **{'Content-Type': content_type})
        assert resp.status_code == 202
    assert len(volume_rows(db)) == 2


@pytest.mark.parametrize('key', ['group_id', 'consistencygroup_id'])
def test_an_unknown_group_is_404_and_creates_nothing(vclient, db, rpc, key):
    resp = vclient.simulate_post('/v3/volumes', headers=admin('3.13'),
                                 json={'volume': {'size': 1, key: UUID}})
    assert fault(resp) == (404, f'Group {UUID} could not be found.')
    _nothing_written(db, rpc)
    assert usages(db) == {}


@pytest.mark.parametrize('hints', [{'same_host': ['not-a-uuid']}, {'same_host': 'x'},
                                   {'different_host': [UUID, UUID]},
                                   {'local_to_instance': 'x'}, {'query': 5}])
def test_invalid_scheduler_hints_are_400_and_create_nothing(vclient, db, rpc, hints):
    resp = vclient.simulate_post('/v3/volumes', headers=admin(), json={
        'volume': {'size': 1}, 'OS-SCH-HNT:scheduler_hints': hints})
    code, message = fault(resp)
    assert code == 400 and message.startswith('Invalid input for field/attribute')
    _nothing_written(db, rpc)


def test_valid_scheduler_hints_pass(vclient, db):
    resp = vclient.simulate_post('/v3/volumes', headers=admin(), json={
        'volume': {'size': 1}, 'OS-SCH-HNT:scheduler_hints': {
            'same_host': [UUID], 'different_host': UUID, 'local_to_instance': None,
            'query': '["=", "$free_capacity_gb", 1]', 'custom': [1]}})
    assert resp.status_code == 202


# --- wrong codes --------------------------------------------------------------------

@pytest.mark.parametrize('value', ['2147483648', '99999999999999999999'])
def test_sizes_past_the_column_are_400_not_a_quota_error(vclient, db, rpc, value):
    limit = 'Invalid input for field/attribute {}. Value: {}. {} is greater than the maximum ' \
            'of 2147483647'
    db_quotas.set_project_limits(db, project_id='admin', limits={'gigabytes': -1})
    resp = vclient.simulate_post('/v3/volumes', headers=admin(),
                                 json={'volume': {'size': value}})
    assert fault(resp) == (400, limit.format('size', value, value))
    _nothing_written(db, rpc)
    volume = add_volume(db)
    resp = vclient.simulate_post(f'/v3/volumes/{volume.id}/action', headers=admin(),
                                 json={'os-extend': {'new_size': value}})
    assert fault(resp) == (400, limit.format('new_size', value, value))
    assert [(v.size, v.status) for v in volume_rows(db)] == [(1, 'available')]


def test_an_empty_volume_update_is_400_from_3_53(vclient, db):
    volume = add_volume(db, display_name='keep')
    resp = vclient.simulate_put(f'/v3/volumes/{volume.id}', headers=admin('3.53'),
                                json={'volume': {}})
    assert fault(resp) == (400, 'Invalid input for field/attribute volume. Value: {}. {} is not '
                                'valid under any of the given schemas')
    assert vclient.simulate_put(f'/v3/volumes/{volume.id}', headers=admin('3.52'),
                                json={'volume': {}}).status_code == 200
    assert [v.display_name for v in volume_rows(db)] == ['keep']


@pytest.mark.parametrize('path, query, version, name', [
    ('/v3/volumes', 'with_count=maybe', '3.45', 'with_count'),
    ('/v3/volumes/detail', 'all_tenants=maybe', None, 'all_tenants'),
    ('/v3/volumes/summary', 'all_tenants=maybe', '3.12', 'all_tenants'),
    ('/v3/snapshots', 'all_tenants=maybe', None, 'all_tenants'),
    ('/v3/attachments', 'all_tenants=maybe', '3.27', 'all_tenants'),
    ('/v3/volume-transfers', 'all_tenants=maybe', '3.55', 'all_tenants'),
])
def test_listing_flags_that_are_no_boolean_are_400(vclient, path, query, version, name):
    resp = vclient.simulate_get(path, query_string=query, headers=admin(version))
    assert fault(resp) == (400, f"Value 'maybe' for '{name}' is not a boolean.")


def test_messages_limit_minus_one_is_400(vclient):
    resp = vclient.simulate_get('/v3/messages', query_string='limit=-1', headers=admin('3.5'))
    assert fault(resp) == (400, 'limit param must be positive')


@pytest.mark.parametrize('value', ['-1', '5'])
def test_a_quota_limit_given_as_a_string_is_400(vclient, db, value):
    resp = vclient.simulate_put('/v3/os-quota-sets/p1', headers=admin(),
                                json={'quota_set': {'volumes': value}})
    assert fault(resp) == (400, PLAIN_400)
    assert db_quotas.get_project_limits(db, project_id='p1') == {}


# --- the smaller mismatches ----------------------------------------------------------

def test_get_root_reads_the_microversion_header(vclient):
    resp = vclient.simulate_get('/', headers={'OpenStack-API-Version': 'volume 3.999'})
    assert resp.status_code == 406
    assert resp.json == {'computeFault': {'code': 406, 'message': (
        'Version 3.999 is not supported by the API. Minimum is 3.0 and maximum is 3.71.')}}
    assert fault(vclient.simulate_get('/', headers={'OpenStack-API-Version': 'VOLUME 3.5'})) \
        == (400, PLAIN_400)
    assert vclient.simulate_get('/', headers={'OpenStack-API-Version': 'volume 3.5'}) \
        .status_code == 300


@pytest.mark.parametrize('method', ['GET', 'DELETE'])
def test_a_body_on_get_or_delete_is_400_and_changes_nothing(vclient, db, rpc, method):
    volume = add_volume(db)
    for path in (f'/v3/volumes/{volume.id}', '/v3/volumes'):
        resp = vclient.simulate_request(method, path, body='{"x": 1}', headers={
            **admin(), 'Content-Type': 'application/json'})
        assert fault(resp) == (400, PLAIN_400)
    # A malformed one is Cinder's malformed body first.
    resp = vclient.simulate_request(method, f'/v3/volumes/{volume.id}', body='{x',
                                    headers={**admin(), 'Content-Type': 'application/json'})
    assert fault(resp) == (400, 'Malformed request body')
    _nothing_written(db, rpc, [volume.id])


def test_a_bom_or_latin_1_is_a_malformed_body(vclient, db, rpc):
    for raw in (b'\xef\xbb\xbf{"volume": {"size": 1}}', b'{"volume": {"size": 1, "name": "\xe9"}}'):
        assert fault(_raw_post(vclient, '/v3/volumes', raw)) == (400, 'Malformed request body')
    _nothing_written(db, rpc)


def test_a_repeated_query_parameter_counts_once_with_its_last_value(vclient, db):
    for _ in range(3):
        add_volume(db)
    resp = vclient.simulate_get('/v3/volumes', query_string='limit=x&limit=2', headers=admin())
    assert resp.status_code == 200 and len(resp.json['volumes']) == 2


def test_an_unknown_types_marker_pages_from_the_start(vclient, db):
    db_types.create(db, name='gold')
    resp = vclient.simulate_get('/v3/types', query_string='marker=nope', headers=admin())
    assert resp.status_code == 200
    assert sorted(t['name'] for t in resp.json['volume_types']) == ['__DEFAULT__', 'gold']


def test_an_unknown_os_services_action_is_not_found(vclient):
    resp = vclient.simulate_put('/v3/os-services/bogus', headers=admin(), json={'host': 'h'})
    assert fault(resp) == (404, 'The resource could not be found.')


def test_type_access_takes_any_project_id_as_cinder(vclient, db):
    private = db_types.create(db, name='private', is_public=False)
    resp = vclient.simulate_post(f'/v3/types/{private.id}/action', headers=admin(),
                                 json={'addProjectAccess': {'project': 'not-a-uuid'}})
    assert resp.status_code == 202
    listed = vclient.simulate_get(f'/v3/types/{private.id}/os-volume-type-access',
                                  headers=admin())
    assert [a['project_id'] for a in listed.json['volume_type_access']] == ['not-a-uuid']


@pytest.mark.parametrize('body, code, message', [
    ('[1]', 404, 'The resource could not be found.'),
    ('"x"', 404, 'The resource could not be found.'),
    ('5', 404, 'The resource could not be found.'),
    ('null', 404, 'The resource could not be found.'),
    ('[1, 2]', 400, 'Malformed request body'),
    ('{}', 400, 'Malformed request body'),
    ('{"os-nope": {}}', 400, NO_SUCH_ACTION.format('os-nope')),
])
@pytest.mark.parametrize('resource', ['volumes', 'snapshots', 'types'])
def test_action_bodies_are_peeked_as_cinder(vclient, db, rpc, resource, body, code, message):
    volume = add_volume(db)
    target = {'volumes': volume.id, 'types': volume.volume_type_id,
              'snapshots': UUID}[resource]
    resp = _raw_post(vclient, f'/v3/{resource}/{target}/action', body.encode())
    assert fault(resp) == (code, message)
    _nothing_written(db, rpc, [volume.id])


def test_the_extend_refusal_names_statuses_in_cinder_s_words(vclient, db):
    volume = add_volume(db, status='error')
    resp = vclient.simulate_post(f'/v3/volumes/{volume.id}/action', headers=admin(),
                                 json={'os-extend': {'new_size': 2}})
    assert fault(resp) == (400, f"Invalid volume: Volume {volume.id} status must be "
                                f"'{{'status': 'available'}}' to extend, currently error.")


def test_a_project_in_the_url_that_is_no_keystone_id_is_no_route(conf, seeded, rpc):
    """Cinder's project_id_regex ([0-9a-f-]+ by default) is part of its routes."""
    conf.clear_override('project_id_regex')
    client = testing.TestClient(create_app(conf, db=seeded, rpc=rpc))
    for project in ('not-hex!', 'admin', 'ABCDEF'):
        resp = client.simulate_post(f'/v3/{project}/volumes', json={'volume': {'size': 1}},
                                    headers={'X-Auth-Token': f'admin:{project}'})
        assert fault(resp) == (404, 'The resource could not be found.'), project
    _nothing_written(seeded, rpc)
    hexed = 'b6a4e8d1c5f04e5ba1a1f1c0d8a6a001'
    assert client.simulate_get(f'/v3/{hexed}/volumes', headers={
        'X-Auth-Token': f'admin:{hexed}'}).status_code == 200
    assert client.simulate_get('/v3/volumes', headers=admin()).status_code == 200


@pytest.mark.parametrize('size, drained', [(2 ** 20, True), (RequestBody.DRAIN_LIMIT + 1, False)])
def test_a_body_declared_too_large_is_413_and_read_first_when_small_enough(
        vclient, db, rpc, size, drained):
    stream = io.BytesIO(b' ' * min(size, 2 * 2 ** 20))
    resp = vclient.simulate_post('/v3/volumes', headers={
        **admin(), 'Content-Type': 'application/json'},
        extras={'wsgi.input': stream, 'CONTENT_LENGTH': str(size)})
    assert fault(resp) == (413, 'Request is too large.')
    # NOTE(drain): read, the client that is still sending gets the answer, not a reset.
    assert (stream.tell() == size) is drained
    _nothing_written(db, rpc)
