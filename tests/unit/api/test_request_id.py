"""request_id.py: the request ids oslo.middleware's RequestId gives, without webob."""

import re
import uuid

import pytest
from falcon import testing

from cinderlike.api import request_id


def _call(headers=None, answer_headers=()):
    seen = {}

    def app(env, start_response):
        seen.update(env)
        start_response('200 OK', [('Content-Type', 'text/plain'), *answer_headers])
        return [b'ok']

    result = testing.simulate_get(request_id.request_ids(app), '/', headers=headers or {})
    return seen, result


def test_each_request_gets_a_new_id_in_its_environ_and_answer():
    first, answer = _call()
    second, _ = _call()
    assert re.fullmatch(r'req-[0-9a-f-]{36}', first[request_id.ENV_REQUEST_ID])
    assert answer.headers['x-openstack-request-id'] == first[request_id.ENV_REQUEST_ID]
    assert first[request_id.ENV_REQUEST_ID] != second[request_id.ENV_REQUEST_ID]
    assert request_id.ENV_GLOBAL_REQUEST_ID not in first


def test_a_callers_valid_id_is_the_global_request_id():
    caller = f'req-{uuid.uuid4()}'
    seen, answer = _call({'X-OpenStack-Request-ID': caller})
    assert seen[request_id.ENV_GLOBAL_REQUEST_ID] == caller
    assert answer.headers['x-openstack-request-id'] == seen[request_id.ENV_REQUEST_ID] != caller


FIXED = '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d'


@pytest.mark.parametrize('caller', ['', 'req-nope', FIXED, f'req-{FIXED}x', f'REQ-{FIXED}',
                                    f'req-{FIXED.upper()}'])
def test_an_invalid_caller_id_is_ignored(caller):
    seen, _ = _call({'X-OpenStack-Request-ID': caller})
    assert request_id.ENV_GLOBAL_REQUEST_ID not in seen


def test_an_answer_naming_its_own_id_keeps_it():
    def app(env, start_response):
        start_response('200 OK', [('X-OpenStack-Request-ID', 'req-given')])
        return [b'ok']

    sent = []
    request_id.request_ids(app)({}, lambda status, headers, exc_info=None: sent.append(headers))
    assert sent == [[('X-OpenStack-Request-ID', 'req-given')]]
