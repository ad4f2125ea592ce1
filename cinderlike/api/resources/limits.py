"""cinderlike-api: GET /limits — the caller's absolute limits, and what it uses when allowed."""

import falcon

from cinderlike import quota
from cinderlike.api import microversions as mv
from cinderlike.api.views import quota_sets as view
from cinderlike.policies import limits as policy


class Limits:
    """GET /limits[?project_id=] (project_id honoured for admins from 3.39)."""

    def __init__(self, conf, db, enforcer):
        self._conf = conf
        self._db = db
        self._enforcer = enforcer

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        ctx = req.context.ctx
        project_id = ctx.project_id
        # NOTE(tenant_id): Cinder still reads the old `tenant_id` spelling too.
        if ctx.is_admin and req.context.api_version.matches(mv.LIMITS_ADMIN_FILTER):
            project_id = req.get_param('project_id') or req.get_param('tenant_id') or project_id
        used = self._enforcer.allowed(
            ctx, policy.EXTEND_LIMIT_ATTRIBUTE_POLICY, {'project_id': project_id})
        quotas = quota.project_quotas(self._conf, self._db, project_id=project_id, usages=used)
        resp.media = view.limits(quotas, used=used)
