"""cinderlike-api: /default-types[/{project_id}] — per-project default volume types (3.62, admin).

Below 3.62 these paths do not exist (404), as Cinder's versioned controller answers.
"""

import falcon

from cinderlike import exception
from cinderlike.api import microversions as mv
from cinderlike.api import validation
from cinderlike.api.operations import types as operations
from cinderlike.api.schemas import types as schema
from cinderlike.api.views import types as view
from cinderlike.db import default_types as db_default_types
from cinderlike.policies import types as policy


def _require_3_62(req: falcon.Request) -> None:
    if not req.context.api_version.matches(mv.DEFAULT_TYPE_OVERRIDES):
        raise falcon.HTTPNotFound()


class DefaultTypes:
    """GET /default-types: every project's default."""

    def __init__(self, db, enforcer):
        self._db = db
        self._enforcer = enforcer

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        _require_3_62(req)
        try:
            self._enforcer.authorize(req.context.ctx, policy.DEFAULT_GET_ALL_POLICY)
        except exception.NotAuthorized:
            raise exception.NotAuthorized(
                'You are not authorized to perform this operation.') from None
        resp.media = view.default_types(db_default_types.get_all(self._db))


class DefaultType:
    """GET/PUT/DELETE /default-types/{target_project_id}."""

    def __init__(self, db, enforcer):
        self._db = db
        self._enforcer = enforcer

    def _authorize(self, req, project_id, rule):
        _require_3_62(req)
        self._enforcer.authorize(req.context.ctx, rule, {'project_id': project_id})

    def on_get(self, req: falcon.Request, resp: falcon.Response, target_project_id: str) -> None:
        """:raises VolumeTypeProjectDefaultNotFound:"""
        self._authorize(req, target_project_id, policy.DEFAULT_GET_POLICY)
        row = db_default_types.get(self._db, project_id=target_project_id)
        if row is None:
            raise exception.VolumeTypeProjectDefaultNotFound(project_id=target_project_id)
        resp.media = view.default_type(row)

    def on_put(self, req: falcon.Request, resp: falcon.Response, target_project_id: str) -> None:
        """:raises ValidationError, Invalid: (no such type)"""
        _require_3_62(req)
        body = validation.load_body(req)
        validation.validate(schema.default_type_set, body)
        self._authorize(req, target_project_id, policy.DEFAULT_SET_POLICY)
        # NOTE(length): the column holds 255; Cinder lets MariaDB refuse more (a 500).
        validation.check_length(target_project_id, 'project_id')
        row = operations.set_project_default(
            self._db, project_id=target_project_id, volume_type=body['default_type']['volume_type'])
        resp.media = view.default_type(row)

    def on_delete(self, req: falcon.Request, resp: falcon.Response, target_project_id: str) -> None:
        self._authorize(req, target_project_id, policy.DEFAULT_UNSET_POLICY)
        db_default_types.unset(self._db, project_id=target_project_id)
        resp.status = falcon.HTTP_204
