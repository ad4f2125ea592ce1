"""policies/enforcer.py: the rules are looked at again at most every RELOAD_CHECK_S, so an
operator's policy file change applies without a restart, and a check does not search for
the file and walk every default."""

import os

import pytest
from oslo_policy import policy

from cinderlike import context, exception
from cinderlike.policies import enforcer as enforcer_module
from tests.fixtures.clock import Clock

ADMIN = context.RequestContext(user_id='u', project_id='p', roles=['admin', 'member',
                                                                    'reader'])



@pytest.fixture
def clock(monkeypatch):
    clock = Clock()
    monkeypatch.setattr(enforcer_module.time, 'monotonic', clock)
    return clock


@pytest.fixture
def policy_file(conf, tmp_path):
    path = tmp_path / 'policy.yaml'
    path.write_text('{}\n')
    policy.Enforcer(conf)  # registers [oslo_policy] on this conf
    conf.set_override('policy_file', str(path), group='oslo_policy')
    return path


def _refuse_type_create(path):
    path.write_text('"volume_extension:type_create": "!"\n')
    stat = path.stat()
    os.utime(path, (stat.st_atime, stat.st_mtime + 5))


def _allowed(enforcer):
    return enforcer.allowed(ADMIN, 'volume_extension:type_create')


def test_a_policy_file_change_applies_once_the_rules_are_stale(conf, clock, policy_file):
    enforcer = enforcer_module.Enforcer(conf)
    assert _allowed(enforcer)
    _refuse_type_create(policy_file)
    clock.now += enforcer_module.RELOAD_CHECK_S / 2
    assert _allowed(enforcer)  # not looked at again yet
    clock.now += enforcer_module.RELOAD_CHECK_S
    assert not _allowed(enforcer)
    with pytest.raises(exception.PolicyNotAuthorized):
        enforcer.authorize(ADMIN, 'volume_extension:type_create')


def test_checks_within_the_interval_do_not_look_for_the_file(conf, clock, policy_file,
                                                             monkeypatch):
    enforcer = enforcer_module.Enforcer(conf)
    assert _allowed(enforcer)
    searched = []
    real = enforcer._enforcer._get_policy_path
    monkeypatch.setattr(enforcer._enforcer, 'policy_path', None)
    monkeypatch.setattr(enforcer._enforcer, '_get_policy_path',
                        lambda path: searched.append(path) or real(path))
    for _ in range(5):
        assert _allowed(enforcer)
    assert searched == []
    clock.now += enforcer_module.RELOAD_CHECK_S
    assert _allowed(enforcer)
    assert searched == [str(policy_file), 'policy.d']  # the file, then the policy_dirs


def _evaluations(monkeypatch, enforcer):
    """The checks that reached oslo.policy (not answered from the kept decisions)."""
    seen = []
    real = enforcer._enforcer.authorize
    monkeypatch.setattr(enforcer._enforcer, 'authorize',
                        lambda rule, *a, **kw: seen.append(rule) or real(rule, *a, **kw))
    return seen


READER = context.RequestContext(user_id='u', project_id='p', roles=['reader'])


def test_a_decision_is_kept_for_the_same_rule_target_and_credentials(conf, clock,
                                                                     monkeypatch):
    enforcer = enforcer_module.Enforcer(conf)
    seen = _evaluations(monkeypatch, enforcer)
    for _ in range(3):
        assert _allowed(enforcer)
        assert not enforcer.allowed(READER, 'volume_extension:type_create')
        with pytest.raises(exception.PolicyNotAuthorized) as refused:
            enforcer.authorize(READER, 'volume_extension:type_create')
        assert str(refused.value) == (
            "Policy doesn't allow volume_extension:type_create to be performed.")
    assert seen == ['volume_extension:type_create'] * 2  # once per caller
    other_project = {'project_id': 'q', 'user_id': 'u'}
    assert not enforcer.allowed(READER, 'volume:get', other_project)
    assert enforcer.allowed(READER, 'volume:get')
    assert len(seen) == 4  # another target is another decision


def test_kept_decisions_go_with_the_rules_they_came_from(conf, clock, policy_file,
                                                         monkeypatch):
    enforcer = enforcer_module.Enforcer(conf)
    assert _allowed(enforcer)
    seen = _evaluations(monkeypatch, enforcer)
    _refuse_type_create(policy_file)
    clock.now += enforcer_module.RELOAD_CHECK_S
    assert not _allowed(enforcer)
    assert seen == ['volume_extension:type_create']


def test_a_check_that_asks_elsewhere_turns_the_keeping_off(conf, clock, policy_file,
                                                           monkeypatch):
    policy_file.write_text('"volume:get": "role:admin or http://127.0.0.1:9/check"\n')
    enforcer = enforcer_module.Enforcer(conf)
    seen = _evaluations(monkeypatch, enforcer)
    for _ in range(2):
        assert enforcer.allowed(ADMIN, 'volume:get')
    assert seen == ['volume:get'] * 2
