"""Every answer carries `x-openstack-request-id` (errors, unknown routes, 401s and version
discovery too), and no token reaches a daemon's log, with `debug = True` everywhere:
keystonemiddleware, the API's request log, RPC contexts in the scheduler and volume
services."""

import json
import re
import urllib.error
import urllib.request
import uuid

import pytest

from tests.functional.clients.helpers import settle
from tests.functional.keystone.policy_world import CONNECTOR, VERSION

pytestmark = [pytest.mark.rabbit, pytest.mark.postgresql]

REQUEST_ID = re.compile(r'^req-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$')
# Keystone's fernet tokens are url-safe base64 of a blob that starts with the version byte.
FERNET = re.compile(r'gAAAAA[A-Za-z0-9_=-]{60,}')


def _raw(url, *, method='GET', token=None, body=None, headers=None):
    """(status, headers, text) of one request; errors included."""
    sent = {'OpenStack-API-Version': VERSION, **(headers or {})}
    if token is not None:
        sent['X-Auth-Token'] = token
    if body is not None and 'Content-Type' not in sent:
        sent['Content-Type'] = 'application/json'
    request = urllib.request.Request(url, data=body, headers=sent, method=method)
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, response.headers, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers, exc.read().decode()


@pytest.fixture(scope='module')
def tokens(keystone):
    return {role: keystone.identity(keystone.users[role]).token()
            for role in ('reader', 'member', 'admin')}


def test_every_answer_carries_a_request_id(stack, keystone, operator_config, tokens):
    api, project = stack.api_url, keystone.users['member'].project_id
    v3 = f'{api}/v3/{project}'
    member, reader = tokens['member'], tokens['reader']
    answers = {
        'version discovery': (_raw(f'{api}/'), 300),
        # NOTE(v3): as Cinder's paste pipeline, /v3/ is behind auth_token.
        'v3 root without a token': (_raw(f'{api}/v3/'), 401),
        'v3 root': (_raw(f'{api}/v3/', token=member), 200),
        'unknown path': (_raw(f'{api}/no-such-path'), 404),
        'no token': (_raw(f'{v3}/volumes'), 401),
        'a token keystone never issued': (_raw(f'{v3}/volumes', token='not-a-token'), 401),
        'list': (_raw(f'{v3}/volumes', token=member), 200),
        'unknown route': (_raw(f'{v3}/no-such-resource', token=member), 404),
        'unknown volume': (_raw(f'{v3}/volumes/{uuid.uuid4()}', token=member), 404),
        'malformed body': (_raw(f'{v3}/volumes', method='POST', token=member,
                                body=b'{not json'), 400),
        'policy refusal': (_raw(f'{v3}/volumes', method='POST', token=reader,
                                body=b'{"volume": {"size": 1}}'), 403),
        'foreign project': (_raw(f'{api}/v3/{uuid.uuid4().hex}/volumes', token=member), 400),
        # Cinder answers 404 for a method a route does not serve.
        'method not served': (_raw(f'{v3}/limits', method='DELETE', token=member), 404),
        'body too large': (_raw(f'{v3}/volumes', method='POST', token=member,
                                body=b' ' * 2 ** 20), 413),
    }
    assert {what: status for what, ((status, _h, _t), _want) in answers.items()} == {
        what: want for what, (_answer, want) in answers.items()}
    ids = {what: headers.get('x-openstack-request-id')
           for what, ((_s, headers, _t), _want) in answers.items()}
    assert {what: bool(REQUEST_ID.match(rid or '')) for what, rid in ids.items()} == {
        what: True for what in ids}
    assert len(set(ids.values())) == len(ids)


def _available(body: str) -> bool:
    return json.loads(body)['volume']['status'] == 'available'


def test_no_token_reaches_a_log(stack, keystone, operator_config, tokens):
    """A token-authenticated run through every daemon: create, attach with a connector
    (RPC calls to the volume service), a refusal, revoked and made-up tokens; then no log
    line of any cinderlike daemon holds a token."""
    api, project = stack.api_url, keystone.users['member'].project_id
    v3, member = f'{api}/v3/{project}', tokens['member']
    status, _h, text = _raw(f'{v3}/volumes', method='POST', token=member,
                            body=b'{"volume": {"size": 1, "name": "log-check"}}')
    assert status == 202, text
    volume_id = re.search(r'"id":\s*"([0-9a-f-]{36})"', text).group(1)
    settle(lambda: _raw(f'{v3}/volumes/{volume_id}', token=member)[2],
           until=_available, what='volume available')
    body = json.dumps({'attachment': {'volume_uuid': volume_id, 'connector': CONNECTOR,
                                      'instance_uuid': str(uuid.uuid4())}}).encode()
    status, _h, text = _raw(f'{v3}/attachments', method='POST', token=member, body=body)
    assert status == 200, text
    attachment_id = re.search(r'"id":\s*"([0-9a-f-]{36})"', text).group(1)
    assert _raw(f'{v3}/attachments/{attachment_id}', method='DELETE', token=member)[0] == 200
    assert _raw(f'{v3}/volumes', method='POST', token=tokens['reader'],
                body=b'{"volume": {"size": 1}}')[0] == 403
    made_up = f'made-up-{uuid.uuid4().hex}'
    assert _raw(f'{v3}/volumes', token=made_up)[0] == 401
    revoked = keystone.identity(keystone.users['member']).token()
    keystone.session(keystone.admin).delete(f'{keystone.auth_url}/auth/tokens',
                                            headers={'X-Subject-Token': revoked})
    assert _raw(f'{v3}/volumes', token=revoked)[0] == 401
    settle(lambda: _raw(f'{v3}/volumes/{volume_id}', token=member)[2],
           until=_available, what='volume detached')
    assert _raw(f'{v3}/volumes/{volume_id}', method='DELETE', token=member)[0] == 202
    settle(lambda: _raw(f'{v3}/volumes/{volume_id}', token=member)[0], until=lambda s: s == 404,
           what='volume deleted')

    logs = {path.name: path.read_text(errors='replace')
            for path in sorted(stack.workdir.glob('*.log'))}
    assert {'api', 'scheduler', 'volume'} <= {name.split('.')[0] for name in logs}
    assert any('DEBUG' in text for text in logs.values()), 'debug logging is not on'
    api_log = ''.join(text for name, text in logs.items() if name.startswith('api.'))
    assert f'/v3/{project}/volumes returned with HTTP 403' in api_log  # the request log
    secrets = [*tokens.values(), made_up, revoked]
    leaks = {name: sorted({s[:12] for s in secrets if s in text} | set(FERNET.findall(text)))
             for name, text in logs.items()}
    assert {name: found for name, found in leaks.items() if found} == {}
