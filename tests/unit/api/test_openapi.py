"""The OpenAPI document: served without a token, one operation per routed responder, valid
schemas throughout, and the committed doc/api/openapi.json is what the code writes now."""

import difflib
import importlib.util
import json
import pathlib

import jsonschema
from falcon import testing

from cinderlike.api import openapi
from cinderlike.api.app import PROJECT_PREFIX, create_app
from tests.unit.api.conftest import ADMIN
from tests.unit.api.volume_fixtures import add_volume

ROOT = pathlib.Path(__file__).resolve().parents[3]
_SPEC = importlib.util.spec_from_file_location('gen_openapi', ROOT / 'tools' / 'gen_openapi.py')
gen_openapi = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(gen_openapi)


def test_committed_document_is_current():
    fresh = gen_openapi.generate()
    committed = gen_openapi.OUTPUT.read_text() if gen_openapi.OUTPUT.exists() else ''
    diff = ''.join(difflib.unified_diff(committed.splitlines(True), fresh.splitlines(True),
                                        'committed', 'generated', n=1))
    assert not diff, (f'{gen_openapi.OUTPUT.relative_to(ROOT)} is stale: run `make openapi` '
                      f'(or `tox -e openapi`) and commit the result.\n{diff[:4000]}')


def test_served_without_a_token_even_with_keystone(conf, db):
    conf.set_override('auth_strategy', 'keystone')
    resp = testing.TestClient(create_app(conf, db=db)).simulate_get(openapi.PATH)
    assert resp.status_code == 200
    assert resp.json == json.loads(gen_openapi.generate())
    assert resp.json['openapi'] == '3.1.0'


def test_every_routed_responder_is_documented_once(conf, db):
    app = create_app(conf, db=db)
    documented = {(path, method.upper()) for path, item in openapi.document(app.routes)[
        'paths'].items() for method in item}
    routed = {(path, method) for path, resource, suffix in app.routes
              if not path.startswith(PROJECT_PREFIX)
              for method in openapi._responders(resource, suffix)}
    assert documented == routed
    assert ('/v3/volumes/{volume_id}/action', 'POST') in routed
    # Every /v3 route has its /v3/{project_id} twin, which the description covers.
    v3 = {path for path, _resource, _suffix in app.routes if path.startswith('/v3/')
          and not path.startswith(PROJECT_PREFIX) and path != '/v3/'}
    twins = {path.replace(PROJECT_PREFIX, '/v3', 1) for path, _r, _s in app.routes
             if path.startswith(PROJECT_PREFIX)}
    assert v3 == twins
    # No table entry outlives its route.
    used = {item['operationId'] for paths in openapi.document(app.routes)['paths'].values()
            for item in paths.values()}
    assert used == {f'{cls}.{responder}' for cls, responder in openapi.OPERATIONS}


def test_every_schema_in_the_document_is_valid(conf, db):
    doc = json.loads(openapi.render(openapi.document(create_app(conf, db=db).routes)))
    for path, item in doc['paths'].items():
        for method, operation in item.items():
            bodies = [operation.get('requestBody', {}).get('content', {})]
            bodies += [answer.get('content', {}) for answer in operation['responses'].values()]
            for content in bodies:
                for media in content.values():
                    jsonschema.Draft202012Validator.check_schema(media['schema'])
            assert operation['responses'], (path, method)


# --- what schemathesis found (tests/functional/test_openapi_fuzz.py) ------------------------

def _matches(doc: dict, path: str, method: str, resp) -> None:
    """*resp* is the answer *doc* documents for *method* on *path*."""
    answers = doc['paths'][path][method]['responses']
    answer = answers.get(str(resp.status_code), answers['default'])
    jsonschema.Draft202012Validator(answer['content']['application/json']['schema']).validate(
        resp.json)


def test_null_extra_specs_and_qos_keys_match_the_documented_answers(client, conf, db):
    """Cinder stores a null spec value (extra_specs_with_null) and shows it as null."""
    doc = json.loads(openapi.render(openapi.document(create_app(conf, db=db).routes)))
    made = client.simulate_post('/v3/types', headers=ADMIN, json={
        'volume_type': {'name': 'gold', 'extra_specs': {'k': None}}})
    assert made.status_code == 200 and made.json['volume_type']['extra_specs'] == {'k': None}
    _matches(doc, '/v3/types', 'post', made)
    _matches(doc, '/v3/types', 'get', client.simulate_get('/v3/types', headers=ADMIN))
    qos = client.simulate_post('/v3/qos-specs', headers=ADMIN,
                               json={'qos_specs': {'name': 'q'}}).json['qos_specs']
    keys = client.simulate_put(f'/v3/qos-specs/{qos["id"]}', headers=ADMIN,
                               json={'qos_specs': {'k': None}})
    assert keys.status_code == 200 and keys.json == {'qos_specs': {'k': None}}
    _matches(doc, '/v3/qos-specs/{specs_id}', 'put', keys)
    _matches(doc, '/v3/qos-specs/{specs_id}', 'get',
             client.simulate_get(f'/v3/qos-specs/{qos["id"]}', headers=ADMIN))
    _matches(doc, '/v3/qos-specs/{specs_id}', 'get',
             client.simulate_get('/v3/qos-specs/nope', headers=ADMIN))


def test_os_set_bootable_s_empty_200_is_documented(vclient, conf, seeded, rpc):
    """Cinder's os-set_bootable answers 200 with no body; the document must not promise JSON."""
    doc = json.loads(openapi.render(openapi.document(create_app(conf, db=seeded).routes)))
    volume = add_volume(seeded)
    resp = vclient.simulate_post(f'/v3/volumes/{volume.id}/action', headers=ADMIN,
                                 json={'os-set_bootable': {'bootable': 'f'}})
    assert (resp.status_code, resp.text) == (200, '')
    answers = doc['paths']['/v3/volumes/{volume_id}/action']['post']['responses']
    assert 'content' not in answers['200'] and 'content' not in answers['202']
