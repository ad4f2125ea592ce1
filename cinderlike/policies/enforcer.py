"""cinderlike-api: the oslo.policy enforcer over the process's ConfigOpts and our defaults."""

from oslo_policy import policy

from cinderlike import exception
from cinderlike.policies import list_rules


class Enforcer:
    """Checks a RequestContext against a named rule; a refusal is Cinder's 403."""

    def __init__(self, conf):
        self._enforcer = policy.Enforcer(conf)
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
