"""cinderlike-api: POST /workers/cleanup (3.24, admin) — settle the in-flight operations of
stopped services, through the scheduler's work_cleanup."""

import falcon

from cinderlike.api import microversions as mv
from cinderlike.api import validation
from cinderlike.api.operations import workers as operations
from cinderlike.api.schemas import workers as schema
from cinderlike.api.views import workers as view
from cinderlike.policies import workers as policy


class WorkersCleanup:
    """POST /workers/cleanup {cluster_name, host, binary, service_id, is_up, disabled,
    resource_type, resource_id} → 202 {cleaning: [...], unavailable: [...]}."""

    def __init__(self, db, enforcer, rpc):
        self._db = db
        self._enforcer = enforcer
        self._rpc = rpc

    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        """:raises ValidationError, InvalidInput:"""
        if not req.context.api_version.matches(mv.WORKERS_CLEANUP):
            raise falcon.HTTPNotFound()
        ctx = req.context.ctx
        # NOTE(order): as Cinder's decorators, the body is checked before the policy.
        # NOTE(body): `null`, `[]` or no body is a 400, never an unfiltered cleanup.
        body = validation.load_body(req)
        validation.validate(schema.cleanup, body)
        self._enforcer.authorize(ctx, policy.CLEAN_POLICY)
        cleaning, unavailable = operations.cleanup(self._db, self._rpc, ctx, body=body)
        resp.status = falcon.HTTP_202
        resp.media = view.cleanup(cleaning, unavailable)
