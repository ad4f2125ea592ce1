"""An operator's policy.yaml (`[oslo_policy] policy_file`) overrides Cinder's defaults in the
running API, and a change of the file applies without a restart, to the requests that come
once the API looked at the file again (every RELOAD_CHECK_S; oslo.policy re-reads the file when
its modification time changed)."""

import os
import time

import pytest

from cinderlike.policies.enforcer import RELOAD_CHECK_S
from tests.functional.keystone.policy_world import Caller, call

pytestmark = [pytest.mark.rabbit, pytest.mark.postgresql]


def _write(policy_file, text):
    """Write the overrides (the modification time moves on even within the same second),
    then let the API's rules go stale."""
    before = policy_file.stat().st_mtime
    policy_file.write_text(text)
    mtime = max(time.time(), before + 1)
    os.utime(policy_file, (mtime, mtime))
    time.sleep(RELOAD_CHECK_S + 0.1)


@pytest.fixture
def policy_file(operator_config):
    yield operator_config
    _write(operator_config, '{}\n')


@pytest.fixture(scope='module')
def callers(keystone):
    return {role: Caller(role, keystone, keystone.users[role])
            for role in ('reader', 'member', 'admin')}


def _status(stack, caller, path):
    status, body, _text = call(stack.api_url, caller, 'GET', path)
    return status, body


def test_an_override_refuses_what_the_default_allows(stack, callers, policy_file):
    member = callers['member']
    assert _status(stack, member, '/volumes')[0] == 200
    _write(policy_file, '"volume:get_all": "rule:admin_api"\n')
    assert _status(stack, member, '/volumes') == (403, {'forbidden': {
        'code': 403, 'message': "Policy doesn't allow volume:get_all to be performed."}})
    assert _status(stack, callers['admin'], '/volumes')[0] == 200


def test_an_override_allows_what_the_default_refuses(stack, callers, policy_file):
    reader = callers['reader']
    assert _status(stack, reader, '/os-services')[0] == 403
    _write(policy_file, '"volume_extension:services:index": "role:reader"\n')
    status, body = _status(stack, reader, '/os-services')
    assert status == 200
    assert {(s['binary'], s['host']) for s in body['services']} == stack.expected_services()


def test_removing_an_override_restores_the_default(stack, callers, policy_file):
    member = callers['member']
    _write(policy_file, '"volume:get_all": "!"\n"message:get_all": "!"\n')
    assert _status(stack, member, '/volumes')[0] == 403
    assert _status(stack, member, '/messages')[0] == 403
    _write(policy_file, '"message:get_all": "!"\n')
    assert _status(stack, member, '/volumes')[0] == 200
    assert _status(stack, member, '/messages')[0] == 403
    _write(policy_file, '{}\n')
    assert _status(stack, member, '/messages')[0] == 200


def test_an_override_of_a_renamed_rule_applies_to_its_successors(stack, callers, policy_file):
    """Cinder's old `volume_extension:types_manage` still governs type create and delete."""
    _write(policy_file, '"volume_extension:types_manage": "!"\n')
    status, body, _text = call(stack.api_url, callers['admin'], 'POST', '/types',
                               {'volume_type': {'name': 'refused-by-operator'}})
    assert (status, body) == (403, {'forbidden': {
        'code': 403,
        'message': "Policy doesn't allow volume_extension:type_create to be performed."}})
    listed = _status(stack, callers['admin'], '/types?is_public=None')[1]['volume_types']
    assert 'refused-by-operator' not in {vtype['name'] for vtype in listed}
