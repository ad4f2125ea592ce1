"""cinderlike-api: GET /types/{type_id}/os-volume-type-access — who may use a private type.

Granting and revoking are actions on /types/{type_id}/action (resources/types.py).
"""

import falcon

from cinderlike import exception
from cinderlike.api.views import types as view
from cinderlike.db import type_access as db_type_access
from cinderlike.db import volume_types as db_types
from cinderlike.policies import types as policy


class TypeAccess:
    """The projects with access to a private type (admin)."""

    def __init__(self, db, enforcer):
        self._db = db
        self._enforcer = enforcer

    def on_get(self, req: falcon.Request, resp: falcon.Response, type_id: str) -> None:
        """:raises VolumeTypeNotFound, VolumeTypeAccessNotFound: (a public type)"""
        ctx = req.context.ctx
        self._enforcer.authorize(ctx, policy.TYPE_ACCESS_WHO_POLICY)
        record = db_types.get(self._db, type_id=type_id, project_id=ctx.project_id,
                              is_admin=ctx.is_admin)
        if record.is_public:
            raise exception.VolumeTypeAccessNotFound(
                'Access list not available for public volume types.')
        resp.media = view.access_list(type_id, db_type_access.get_projects(self._db,
                                                                            type_id=type_id))
