"""cinderlike-api: /types/{type_id}/encryption[/{key}] — show, show a key, create, update,
delete (admin), with Cinder's fields and checks.

Create, update and delete are refused (400) while a live volume has the type.
"""

import falcon

from cinderlike import exception
from cinderlike.api import validation
from cinderlike.api.operations import volume_type_encryption as operations
from cinderlike.api.schemas import volume_type_encryption as schema
from cinderlike.api.views import volume_type_encryption as view
from cinderlike.db import encryption as db_encryption
from cinderlike.db import volume_types as db_types
from cinderlike.policies import volume_type_encryption as policy


def _shown(db, type_id: str) -> dict:
    """:raises VolumeTypeNotFound: (Cinder's _check_type)"""
    db_types.get(db, type_id=type_id)
    return view.specs(db_encryption.get(db, type_id=type_id))


class _Resource:
    def __init__(self, db, enforcer, notifier):
        self._db = db
        self._enforcer = enforcer
        self._notifier = notifier


class TypeEncryption(_Resource):
    """GET /types/{type_id}/encryption (`{}` when not encrypted), POST {encryption: {...}}."""

    def on_get(self, req: falcon.Request, resp: falcon.Response, type_id: str) -> None:
        self._enforcer.authorize(req.context.ctx, policy.GET_POLICY)
        resp.media = _shown(self._db, type_id)

    def on_post(self, req: falcon.Request, resp: falcon.Response, type_id: str) -> None:
        body = validation.load_body(req)
        validation.validate(schema.create, body, formats=schema.FORMATS)
        ctx = req.context.ctx
        self._enforcer.authorize(ctx, policy.CREATE_POLICY)
        specs = operations.create(self._db, self._notifier, ctx, type_id=type_id,
                                  specs=body['encryption'])
        resp.media = {'encryption': specs}


class TypeEncryptionItem(_Resource):
    """GET /types/{type_id}/encryption/{key} (one field), PUT and DELETE
    /types/{type_id}/encryption/{encryption_id} (the id itself is not checked, as Cinder)."""

    def on_get(self, req: falcon.Request, resp: falcon.Response, type_id: str, key: str) -> None:
        self._enforcer.authorize(req.context.ctx, policy.GET_POLICY)
        specs = _shown(self._db, type_id)
        if key not in specs:
            raise exception.VolumeTypeEncryptionNotFound(type_id=type_id)
        resp.media = {key: specs[key]}

    def on_put(self, req: falcon.Request, resp: falcon.Response, type_id: str, key: str) -> None:
        body = validation.load_body(req)
        validation.validate(schema.update, body, formats=schema.FORMATS)
        ctx = req.context.ctx
        self._enforcer.authorize(ctx, policy.UPDATE_POLICY)
        specs = operations.update(self._db, self._notifier, ctx, type_id=type_id,
                                  encryption_id=key, specs=body['encryption'])
        resp.media = {'encryption': specs}

    def on_delete(self, req: falcon.Request, resp: falcon.Response, type_id: str,
                  key: str) -> None:
        ctx = req.context.ctx
        self._enforcer.authorize(ctx, policy.DELETE_POLICY)
        operations.delete(self._db, ctx, type_id=type_id)
        resp.status = falcon.HTTP_202
