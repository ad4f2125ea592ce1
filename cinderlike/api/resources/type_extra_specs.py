"""cinderlike-api: /types/{type_id}/extra_specs[/{key}] — read, create, update, delete.

Readers see only Cinder's user-visible keys unless `read_sensitive` allows the rest; the
specs of a type that volumes use cannot change (400, as Cinder).
"""

import falcon

from cinderlike import exception
from cinderlike.api import validation
from cinderlike.api.operations import types as operations
from cinderlike.api.schemas import types as schema
from cinderlike.api.views import types as view
from cinderlike.db import volume_types as db_types
from cinderlike.policies import types as policy


def _readable_specs(db, enforcer, ctx, type_id) -> dict:
    """:raises VolumeTypeNotFound: when the caller cannot see the type."""
    record = db_types.get(db, type_id=type_id, project_id=ctx.project_id, is_admin=ctx.is_admin)
    sensitive = enforcer.allowed(ctx, policy.SPECS_READ_SENSITIVE_POLICY)
    return view.shown_specs(record.extra_specs, sensitive=sensitive)


class TypeExtraSpecs:
    """GET /types/{type_id}/extra_specs, POST .../extra_specs {extra_specs: {...}} (admin)."""

    def __init__(self, db, enforcer, notifiers):
        self._db = db
        self._enforcer = enforcer
        self._notifiers = notifiers

    def on_get(self, req: falcon.Request, resp: falcon.Response, type_id: str) -> None:
        ctx = req.context.ctx
        self._enforcer.authorize(ctx, policy.SPECS_GET_ALL_POLICY)
        resp.media = {'extra_specs': _readable_specs(self._db, self._enforcer, ctx, type_id)}

    def on_post(self, req: falcon.Request, resp: falcon.Response, type_id: str) -> None:
        body = validation.load_body(req)
        validation.validate(schema.extra_specs_create, body)
        ctx = req.context.ctx
        self._enforcer.authorize(ctx, policy.SPECS_CREATE_POLICY)
        operations.set_extra_specs(self._db, self._notifiers, ctx, type_id=type_id,
                                   specs=body['extra_specs'])
        resp.media = body


class TypeExtraSpec:
    """GET/PUT/DELETE /types/{type_id}/extra_specs/{key}; PUT's body is `{key: value}`."""

    def __init__(self, db, enforcer, notifiers):
        self._db = db
        self._enforcer = enforcer
        self._notifiers = notifiers

    def on_get(self, req: falcon.Request, resp: falcon.Response, type_id: str, key: str) -> None:
        ctx = req.context.ctx
        self._enforcer.authorize(ctx, policy.SPECS_GET_POLICY)
        specs = _readable_specs(self._db, self._enforcer, ctx, type_id)
        if key not in specs:
            raise exception.VolumeTypeExtraSpecsNotFound(volume_type_id=type_id,
                                                         extra_specs_key=key)
        resp.media = {key: specs[key]}

    def on_put(self, req: falcon.Request, resp: falcon.Response, type_id: str, key: str) -> None:
        body = validation.load_body(req)
        validation.validate(schema.extra_specs_update, body)
        ctx = req.context.ctx
        self._enforcer.authorize(ctx, policy.SPECS_UPDATE_POLICY)
        if key not in body:
            raise exception.Invalid('Request body and URI mismatch')
        operations.set_extra_specs(self._db, self._notifiers, ctx, type_id=type_id,
                                   specs=body, key=key)
        resp.media = body

    def on_delete(self, req: falcon.Request, resp: falcon.Response, type_id: str,
                  key: str) -> None:
        ctx = req.context.ctx
        # NOTE(order): Cinder looks the type up before the policy check here.
        db_types.get(self._db, type_id=type_id, project_id=ctx.project_id, is_admin=ctx.is_admin)
        self._enforcer.authorize(ctx, policy.SPECS_DELETE_POLICY)
        operations.delete_extra_spec(self._db, self._notifiers, ctx, type_id=type_id, key=key)
        resp.status = falcon.HTTP_202
