"""cinderlike-api: the oslo.policy enforcer over the process's ConfigOpts and our defaults."""

import time

from oslo_policy import _checks, policy

from cinderlike import exception
from cinderlike.policies import list_rules

# How long the rules loaded stay current before the policy file and directories are
# looked at again.
RELOAD_CHECK_S = 1.0


# The checks whose answer depends only on the rules, the target and the credentials.
# NOTE(oslo): oslo.policy re-exports only some of its check classes; _checks holds them all.
_PURE_CHECKS = (_checks.TrueCheck, _checks.FalseCheck, _checks.NotCheck, _checks.AndCheck,
                _checks.OrCheck, _checks.RuleCheck, _checks.RoleCheck, _checks.GenericCheck)
# Decisions kept at most; past that they are all dropped (a new set fills within a second).
MAX_DECISIONS = 10_000


def _pure(check) -> bool:
    if type(check) not in _PURE_CHECKS:
        return False
    children = getattr(check, 'rules', None) or [getattr(check, 'rule', None)]
    return all(_pure(child) for child in children if isinstance(child, _checks.BaseCheck))


class _Enforcer(policy.Enforcer):
    """oslo.policy's Enforcer, its rules looked at again at most every RELOAD_CHECK_S, and
    its decisions kept until then.

    NOTE(perf): Enforcer.enforce() calls load_rules() on every check: a search for a policy
    file through the config directories (when there is none) and a walk over every
    registered default, about 460 Python calls per authorize; evaluating a rule then calls
    inspect.getfullargspec() at each of its nodes. A policy file an operator edits still
    applies without a restart, within RELOAD_CHECK_S; a decision is kept only while the
    rules it came from are, and only when every rule is made of checks whose answer
    depends on nothing but the target and the credentials (an `http:` or custom check
    turns the keeping off).
    """

    _checked_at = None
    _keep = False

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.decisions: dict = {}

    def load_rules(self, force_reload=False):
        now = time.monotonic()
        if (not force_reload and self.rules and self._checked_at is not None
                and now - self._checked_at < RELOAD_CHECK_S):
            return
        super().load_rules(force_reload)
        self._checked_at = now
        self.decisions = {}
        self._keep = all(_pure(check) for check in self.rules.values())

    def decision_key(self, action: str, target: dict, credentials: dict):
        """What a decision is kept under: the rule, the target and the credentials whole;
        None when they are not to be kept (an unhashable value, keeping off)."""
        if not self._keep:
            return None
        try:
            key = (action, _frozen(target), _frozen(credentials))
            hash(key)
        except TypeError:
            return None
        return key


def _frozen(values: dict) -> tuple:
    return tuple(sorted((k, tuple(v) if isinstance(v, list) else v)
                        for k, v in values.items()))


class Enforcer:
    """Checks a RequestContext against a named rule; a refusal is Cinder's 403."""

    def __init__(self, conf):
        self._enforcer = _Enforcer(conf)
        self._enforcer.register_defaults(list_rules())

    def authorize(self, ctx, action: str, target: dict | None = None) -> None:
        """:raises PolicyNotAuthorized: when the rule refuses *ctx*."""
        if target is None:
            target = {'project_id': ctx.project_id, 'user_id': ctx.user_id}
        # NOTE(is_admin): Cinder's context puts is_admin into the credentials, so
        # `is_admin:True` checks see the noauth/elevated admin flag.
        credentials = dict(ctx.to_policy_values(), is_admin=ctx.is_admin)
        enforcer = self._enforcer
        enforcer.load_rules()
        key = enforcer.decision_key(action, target, credentials)
        allowed = enforcer.decisions.get(key) if key is not None else None
        if allowed is None:
            try:
                enforcer.authorize(action, target, credentials, do_raise=True,
                                   exc=exception.PolicyNotAuthorized, action=action)
                allowed = True
            except exception.PolicyNotAuthorized:
                allowed = False
            if key is not None:
                if len(enforcer.decisions) >= MAX_DECISIONS:
                    enforcer.decisions = {}
                enforcer.decisions[key] = allowed
        if not allowed:
            raise exception.PolicyNotAuthorized(action=action)

    def allowed(self, ctx, action: str, target: dict | None = None) -> bool:
        """A soft check: may *ctx* see an optional field or part of a view?"""
        try:
            self.authorize(ctx, action, target)
        except exception.PolicyNotAuthorized:
            return False
        return True
