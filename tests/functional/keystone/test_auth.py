"""auth_strategy = keystone against a real Keystone: keystonemiddleware's auth_token validates
tokens with the `cinderlike` service user; version discovery needs no token."""

import json
import urllib.error
import urllib.request

import pytest

from tests.functional.clients.helpers import settle

pytestmark = [pytest.mark.rabbit, pytest.mark.postgresql]

UNAUTHORIZED = {'error': {'code': 401, 'title': 'Unauthorized',
                          'message': 'The request you have made requires authentication.'}}
MALFORMED_URL = {'badRequest': {'code': 400, 'message': 'Malformed request url'}}


def _call(url, *, token=None, method='GET', body=None):
    """(status, headers, JSON body or None) of one request; errors included."""
    headers = {'Content-Type': 'application/json'}
    if token is not None:
        headers['X-Auth-Token'] = token
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            raw = response.read()
            return response.status, response.headers, json.loads(raw) if raw else None
    except urllib.error.HTTPError as exc:
        raw = exc.read()
        return exc.code, exc.headers, json.loads(raw) if raw else None


def test_version_discovery_needs_no_token(stack):
    status, _headers, body = _call(f'{stack.api_url}/')
    assert status == 300
    (v3,) = [v for v in body['versions'] if v['id'] == 'v3.0']
    assert (v3['min_version'], v3['version']) == ('3.0', '3.71')



def test_api_call_without_a_token_is_refused_by_auth_token(stack, keystone):
    project_id = keystone.users['member'].project_id
    status, headers, body = _call(f'{stack.api_url}/v3/{project_id}/volumes')
    assert (status, body) == (401, UNAUTHORIZED)
    assert headers['WWW-Authenticate'] == f'Keystone uri="{keystone.auth_url}"'


def test_a_token_keystone_did_not_issue_is_refused(stack, keystone):
    project_id = keystone.users['member'].project_id
    status, _headers, body = _call(f'{stack.api_url}/v3/{project_id}/volumes',
                                   token='not-a-keystone-token')
    assert (status, body) == (401, UNAUTHORIZED)


def test_member_token_is_scoped_to_its_project(stack, keystone, name):
    member = keystone.users['member']
    token = keystone.identity(member).token()
    url = f'{stack.api_url}/v3/{member.project_id}/volumes'
    status, _headers, body = _call(url, token=token, method='POST',
                                   body={'volume': {'size': 1, 'name': name}})
    assert status == 202, body
    volume = body['volume']
    status, _headers, listed = _call(f'{url}/detail?name={name}', token=token)
    assert status == 200
    assert [(v['id'], v['os-vol-tenant-attr:tenant_id']) for v in listed['volumes']] == [
        (volume['id'], member.project_id)]
    # the URL's project must be the token's (Cinder's 400 for a foreign project id)
    status, _headers, body = _call(f'{stack.api_url}/v3/{keystone.admin.project_id}/volumes',
                                   token=token)
    assert (status, body) == (400, MALFORMED_URL)
    settle(lambda: _call(f'{url}/{volume["id"]}', token=token)[2]['volume']['status'],
           until=lambda status: status == 'available', what=f'volume {volume["id"]}')
    assert _call(f'{url}/{volume["id"]}', token=token, method='DELETE')[0] == 202
    settle(lambda: _call(f'{url}/{volume["id"]}', token=token)[0], until=lambda s: s == 404,
           what=f'volume {volume["id"]} to be deleted')


def test_roles_from_keystone_reach_the_policy_checks(stack, keystone):
    for role, expected in (('member', 403), ('reader', 403), ('admin', 200)):
        user = keystone.users[role]
        status, _headers, body = _call(f'{stack.api_url}/v3/{user.project_id}/os-services',
                                       token=keystone.identity(user).token())
        assert status == expected, (role, body)
    status, _headers, body = _call(
        f'{stack.api_url}/v3/{keystone.admin.project_id}/os-services',
        token=stack.identity.token())
    assert status == 200
    assert {(s['binary'], s['host']) for s in body['services']} == stack.expected_services()


def test_reader_may_list_but_not_create(stack, keystone, name):
    reader = keystone.users['reader']
    token = keystone.identity(reader).token()
    url = f'{stack.api_url}/v3/{reader.project_id}/volumes'
    assert _call(url, token=token)[0] == 200
    status, _headers, body = _call(url, token=token, method='POST',
                                   body={'volume': {'size': 1, 'name': name}})
    assert (status, body) == (403, {'forbidden': {
        'code': 403, 'message': 'Policy doesn\'t allow volume:create to be performed.'}})
    assert _call(f'{url}?name={name}', token=token)[2] == {'volumes': []}
