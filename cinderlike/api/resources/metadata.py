"""cinderlike-api: /<resources>/{id}/metadata[/{key}] of volumes and snapshots — show, merge
(POST), replace (PUT), one key; both writes answer with the metadata as stored.

One implementation for every resource with user metadata; an `Owner` says how to reach the
resource's row, rows and rules (Cinder's volume_metadata and snapshot_metadata controllers).
"""

import dataclasses
from collections.abc import Callable

import falcon

from cinderlike import exception
from cinderlike.api import validation


@dataclasses.dataclass(frozen=True)
class Owner:
    """A resource with user metadata: its route field, lookups, writes, rules and schemas."""

    id_field: str                              # 'volume_id' | 'snapshot_id'
    get: Callable                              # (db, ctx, row_id) -> row, or its NotFound
    read: Callable[..., dict]                  # (db, row_id) -> {key: value}
    write: Callable[..., dict]                 # (db, row_id, metadata, replace) -> stored
    remove: Callable                           # (db, row_id, key); raises missing
    missing: Callable[[str, str], Exception]   # (row_id, key) -> the 404 of a key
    schemas: object                            # metadata_create, metadata_update_item
    get_rule: str
    create_rule: str
    update_rule: str
    delete_rule: str


class _Base:
    def __init__(self, db, enforcer, owner: Owner):
        self._db = db
        self._enforcer = enforcer
        self._owner = owner

    def _authorized(self, req: falcon.Request, row_id: str, rule: str) -> dict:
        """The row's current metadata once *rule* allows the caller on it."""
        ctx = req.context.ctx
        row = self._owner.get(self._db, ctx, row_id)
        self._enforcer.authorize(ctx, rule, {'project_id': row.project_id,
                                             'user_id': row.user_id})
        return self._owner.read(self._db, row_id)


class Metadata(_Base):
    """GET / POST (merge) / PUT (replace) …/{id}/metadata."""

    def on_get(self, req: falcon.Request, resp: falcon.Response, **fields) -> None:
        """:raises NotFound:"""
        row_id = fields[self._owner.id_field]
        resp.media = {'metadata': self._authorized(req, row_id, self._owner.get_rule)}

    def _write(self, req, row_id: str, rule: str, *, replace: bool) -> dict:
        body = validation.load_body(req)
        validation.validate(self._owner.schemas.metadata_create, body)
        self._authorized(req, row_id, rule)
        return self._owner.write(self._db, row_id, body['metadata'], replace)

    def on_post(self, req: falcon.Request, resp: falcon.Response, **fields) -> None:
        """:raises ValidationError, NotFound:"""
        resp.media = {'metadata': self._write(req, fields[self._owner.id_field],
                                              self._owner.create_rule, replace=False)}

    def on_put(self, req: falcon.Request, resp: falcon.Response, **fields) -> None:
        """:raises ValidationError, NotFound:"""
        resp.media = {'metadata': self._write(req, fields[self._owner.id_field],
                                              self._owner.update_rule, replace=True)}


class MetadataItem(_Base):
    """GET / PUT / DELETE …/{id}/metadata/{key}."""

    def on_get(self, req: falcon.Request, resp: falcon.Response, key: str, **fields) -> None:
        """:raises NotFound: the row, or its key."""
        row_id = fields[self._owner.id_field]
        metadata = self._authorized(req, row_id, self._owner.get_rule)
        if key not in metadata:
            raise self._owner.missing(row_id, key)
        resp.media = {'meta': {key: metadata[key]}}

    def on_put(self, req: falcon.Request, resp: falcon.Response, key: str, **fields) -> None:
        """:raises ValidationError, Invalid, NotFound:"""
        row_id = fields[self._owner.id_field]
        body = validation.load_body(req)
        validation.validate(self._owner.schemas.metadata_update_item, body)
        meta = body['meta']
        if key not in meta:
            raise exception.Invalid('Request body and URI mismatch')
        if len(meta) > 1:
            raise exception.Invalid('Request body contains too many items')
        self._authorized(req, row_id, self._owner.update_rule)
        self._owner.write(self._db, row_id, meta, False)
        resp.media = {'meta': meta}

    def on_delete(self, req: falcon.Request, resp: falcon.Response, key: str,
                  **fields) -> None:
        """:raises NotFound: the row, or its key."""
        row_id = fields[self._owner.id_field]
        self._authorized(req, row_id, self._owner.delete_rule)
        self._owner.remove(self._db, row_id, key)
