"""cinderlike-api: /volumes/{volume_id}/metadata[/{key}] — show, merge, replace, one key.

POST merges into the volume's metadata, PUT replaces it whole; both answer with the result.
"""

import falcon

from cinderlike import exception
from cinderlike.api import validation
from cinderlike.api.operations import volumes as operations
from cinderlike.api.schemas import volumes as schema
from cinderlike.db import volumes as db_volumes
from cinderlike.policies import volumes as policy


class _Base:
    def __init__(self, db, enforcer):
        self._db = db
        self._enforcer = enforcer

    def _authorized(self, req: falcon.Request, volume_id: str, rule: str) -> dict:
        """The volume's current metadata once *rule* allows the caller on it."""
        ctx = req.context.ctx
        volume = operations.get(self._db, ctx, volume_id=volume_id)
        self._enforcer.authorize(ctx, rule, {'project_id': volume.project_id,
                                             'user_id': volume.user_id})
        return db_volumes.get_metadata(self._db, volume_ids=[volume_id])[volume_id]


class VolumeMetadata(_Base):
    """GET / POST (merge) / PUT (replace) /volumes/{volume_id}/metadata."""

    def on_get(self, req: falcon.Request, resp: falcon.Response, volume_id: str) -> None:
        resp.media = {'metadata': self._authorized(req, volume_id, policy.GET_METADATA_POLICY)}

    def _write(self, req, volume_id: str, rule: str, *, replace: bool) -> dict:
        body = validation.load_body(req, limit=req.context.max_body)
        validation.validate(schema.metadata_create, body)
        self._authorized(req, volume_id, rule)
        return db_volumes.update_metadata(self._db, volume_id=volume_id,
                                          metadata=body['metadata'], replace=replace)

    def on_post(self, req: falcon.Request, resp: falcon.Response, volume_id: str) -> None:
        """:raises ValidationError, VolumeNotFound:"""
        resp.media = {'metadata': self._write(req, volume_id, policy.CREATE_METADATA_POLICY,
                                              replace=False)}

    def on_put(self, req: falcon.Request, resp: falcon.Response, volume_id: str) -> None:
        """:raises ValidationError, VolumeNotFound:"""
        resp.media = {'metadata': self._write(req, volume_id, policy.UPDATE_METADATA_POLICY,
                                              replace=True)}


class VolumeMetadataItem(_Base):
    """GET / PUT / DELETE /volumes/{volume_id}/metadata/{key}."""

    def on_get(self, req: falcon.Request, resp: falcon.Response, volume_id: str,
               key: str) -> None:
        """:raises VolumeNotFound, VolumeMetadataNotFound:"""
        metadata = self._authorized(req, volume_id, policy.GET_METADATA_POLICY)
        if key not in metadata:
            raise exception.VolumeMetadataNotFound(volume_id=volume_id, metadata_key=key)
        resp.media = {'meta': {key: metadata[key]}}

    def on_put(self, req: falcon.Request, resp: falcon.Response, volume_id: str,
               key: str) -> None:
        """:raises ValidationError, Invalid, VolumeNotFound:"""
        body = validation.load_body(req, limit=req.context.max_body)
        validation.validate(schema.metadata_update_item, body)
        meta = body['meta']
        if key not in meta:
            raise exception.Invalid('Request body and URI mismatch')
        if len(meta) > 1:
            raise exception.Invalid('Request body contains too many items')
        self._authorized(req, volume_id, policy.UPDATE_METADATA_POLICY)
        db_volumes.update_metadata(self._db, volume_id=volume_id, metadata=meta)
        resp.media = {'meta': meta}

    def on_delete(self, req: falcon.Request, resp: falcon.Response, volume_id: str,
                  key: str) -> None:
        """:raises VolumeNotFound, VolumeMetadataNotFound:"""
        self._authorized(req, volume_id, policy.DELETE_METADATA_POLICY)
        db_volumes.delete_metadata(self._db, volume_id=volume_id, key=key)
