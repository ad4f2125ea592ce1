"""cinderlike-api: /snapshots/{snapshot_id}/metadata[/{key}] — show, merge, replace, one key.

POST merges into the snapshot's metadata, PUT replaces it whole; both answer with the result
(Cinder's snapshot_metadata controller).
"""

import falcon

from cinderlike import exception
from cinderlike.api import validation
from cinderlike.api.operations import snapshots as operations
from cinderlike.api.schemas import snapshots as schema
from cinderlike.db import snapshots as db_snapshots
from cinderlike.policies import snapshots as policy


class _Base:
    def __init__(self, db, enforcer):
        self._db = db
        self._enforcer = enforcer

    def _authorized(self, req: falcon.Request, snapshot_id: str, rule: str) -> dict:
        """The snapshot's current metadata once *rule* allows the caller on it."""
        ctx = req.context.ctx
        snapshot = operations.get(self._db, ctx, snapshot_id=snapshot_id)
        self._enforcer.authorize(ctx, rule, {'project_id': snapshot.project_id,
                                             'user_id': snapshot.user_id})
        return db_snapshots.get_metadata(self._db, snapshot_ids=[snapshot_id])[snapshot_id]


class SnapshotMetadata(_Base):
    """GET / POST (merge) / PUT (replace) /snapshots/{snapshot_id}/metadata."""

    def on_get(self, req: falcon.Request, resp: falcon.Response, snapshot_id: str) -> None:
        """:raises SnapshotNotFound:"""
        resp.media = {'metadata': self._authorized(req, snapshot_id,
                                                   policy.GET_METADATA_POLICY)}

    def _write(self, req, snapshot_id: str, *, replace: bool) -> dict:
        body = validation.load_body(req, limit=req.context.max_body)
        validation.validate(schema.metadata_create, body)
        self._authorized(req, snapshot_id, policy.UPDATE_METADATA_POLICY)
        return db_snapshots.update_metadata(self._db, snapshot_id=snapshot_id,
                                            metadata=body['metadata'], replace=replace)

    def on_post(self, req: falcon.Request, resp: falcon.Response, snapshot_id: str) -> None:
        """:raises ValidationError, SnapshotNotFound:"""
        resp.media = {'metadata': self._write(req, snapshot_id, replace=False)}

    def on_put(self, req: falcon.Request, resp: falcon.Response, snapshot_id: str) -> None:
        """:raises ValidationError, SnapshotNotFound:"""
        resp.media = {'metadata': self._write(req, snapshot_id, replace=True)}


class SnapshotMetadataItem(_Base):
    """GET / PUT / DELETE /snapshots/{snapshot_id}/metadata/{key}."""

    def on_get(self, req: falcon.Request, resp: falcon.Response, snapshot_id: str,
               key: str) -> None:
        """:raises SnapshotNotFound, SnapshotMetadataNotFound:"""
        metadata = self._authorized(req, snapshot_id, policy.GET_METADATA_POLICY)
        if key not in metadata:
            raise exception.SnapshotMetadataNotFound(snapshot_id=snapshot_id, metadata_key=key)
        resp.media = {'meta': {key: metadata[key]}}

    def on_put(self, req: falcon.Request, resp: falcon.Response, snapshot_id: str,
               key: str) -> None:
        """:raises ValidationError, Invalid, SnapshotNotFound:"""
        body = validation.load_body(req, limit=req.context.max_body)
        validation.validate(schema.metadata_update_item, body)
        meta = body['meta']
        if key not in meta:
            raise exception.Invalid('Request body and URI mismatch')
        self._authorized(req, snapshot_id, policy.UPDATE_METADATA_POLICY)
        db_snapshots.update_metadata(self._db, snapshot_id=snapshot_id, metadata=meta)
        resp.media = {'meta': meta}

    def on_delete(self, req: falcon.Request, resp: falcon.Response, snapshot_id: str,
                  key: str) -> None:
        """:raises SnapshotNotFound, SnapshotMetadataNotFound:"""
        self._authorized(req, snapshot_id, policy.DELETE_METADATA_POLICY)
        db_snapshots.delete_metadata(self._db, snapshot_id=snapshot_id, key=key)
