"""cinderlike-api: /volumes/{volume_id}/encryption[/{key}] — what an attaching host needs
to open an encrypted volume: its key id and its type's encryption specs (Cinder's fields).
"""

import falcon

from cinderlike import exception
from cinderlike.api.operations import volumes as operations
from cinderlike.db import encryption as db_encryption
from cinderlike.policies import volumes as policy


class _Resource:
    def __init__(self, db, enforcer):
        self._db = db
        self._enforcer = enforcer

    def _metadata(self, req: falcon.Request, volume_id: str) -> dict:
        """:raises VolumeNotFound: (before the policy check, as Cinder)"""
        ctx = req.context.ctx
        volume = operations.get(self._db, ctx, volume_id=volume_id)
        self._enforcer.authorize(ctx, policy.ENCRYPTION_METADATA_POLICY,
                                 {'project_id': volume.project_id, 'user_id': volume.user_id})
        return db_encryption.metadata_of(self._db, volume=volume)


class VolumeEncryption(_Resource):
    """GET /volumes/{volume_id}/encryption: `encryption_key_id` (null when not encrypted),
    plus provider, cipher, key_size and control_location of an encrypted type."""

    def on_get(self, req: falcon.Request, resp: falcon.Response, volume_id: str) -> None:
        resp.media = self._metadata(req, volume_id)


class VolumeEncryptionItem(_Resource):
    """GET /volumes/{volume_id}/encryption/{key}: that one value, bare (as Cinder)."""

    def on_get(self, req: falcon.Request, resp: falcon.Response, volume_id: str,
               key: str) -> None:
        metadata = self._metadata(req, volume_id)
        # NOTE(missing): Cinder's KeyError becomes a 500; an unknown key is a 404 here.
        if key not in metadata:
            raise exception.NotFound(f'Volume {volume_id} has no encryption metadata {key}.')
        resp.media = metadata[key]
