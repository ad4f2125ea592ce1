"""cinderlike-api: the oslo.policy enforcer over the process's ConfigOpts and our defaults."""

import time

from oslo_policy import policy

from cinderlike import exception
from cinderlike.policies import list_rules

# How long the rules loaded stay current before the policy file and directories are
# looked at again.
RELOAD_CHECK_S = 1.0


class _Enforcer(policy.Enforcer):
    """oslo.policy's Enforcer, its rules looked at again at most every RELOAD_CHECK_S.

    NOTE(perf): Enforcer.enforce() calls load_rules() on every check: a search for a policy
    file through the config directories (when there is none) and a walk over every
    registered default, about 860 Python calls per authorize. A policy file an operator
    edits still applies without a restart, within RELOAD_CHECK_S.
    """

    _checked_at = None

    def load_rules(self, force_reload=False):
        now = time.monotonic()
        if (not force_reload and self.rules and self._checked_at is not None
                and now - self._checked_at < RELOAD_CHECK_S):
            return
        super().load_rules(force_reload)
        self._checked_at = now


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
        self._enforcer.authorize(action, target, credentials, do_raise=True,
                                 exc=exception.PolicyNotAuthorized, action=action)

    def allowed(self, ctx, action: str, target: dict | None = None) -> bool:
        """A soft check: may *ctx* see an optional field or part of a view?"""
        try:
            self.authorize(ctx, action, target)
        except exception.PolicyNotAuthorized:
            return False
        return True
