"""cinderlike-api: user messages (3.3) — list (filters/sort/pagination from 3.5), show, delete.

Messages explain asynchronous failures; they are written by the services through
cinderlike/messages.py. An admin sees every project's messages, others their project's.
"""

import falcon

from cinderlike.api import listing
from cinderlike.api import microversions as mv
from cinderlike.api.views import common as common_view
from cinderlike.api.views import messages as view
from cinderlike.db import messages as db_messages
from cinderlike.policies import messages as policy

# Filters a non-admin may use (Cinder's resource_filters.json, "message").
ALLOWED_FILTERS = ('resource_uuid', 'resource_type', 'event_id', 'request_id',
                   'message_level')


class _Base:
    def __init__(self, conf, db, enforcer):
        self._conf = conf
        self._db = db
        self._enforcer = enforcer

    def _start(self, req: falcon.Request) -> None:
        """Messages exist from 3.3: older requests get Cinder's plain 404."""
        if not req.context.api_version.matches(mv.MESSAGES):
            raise falcon.HTTPNotFound()

    def _base(self, req: falcon.Request) -> str:
        return common_view.base_url(self._conf, req)

    def _load(self, req: falcon.Request, message_id: str):
        ctx = req.context.ctx
        return db_messages.get(self._db, message_id,
                               project_id=None if ctx.is_admin else ctx.project_id)


class Messages(_Base):
    """GET /messages."""

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        """:raises Invalid, InvalidInput, MessageNotFound: bad paging/sort/filters, marker."""
        self._start(req)
        ctx, version = req.context.ctx, req.context.api_version
        self._enforcer.authorize(ctx, policy.GET_ALL_POLICY)
        params, marker, limit, offset, sort = {}, None, None, None, None
        if version.matches(mv.MESSAGES_PAGINATION):
            params = dict(req.params)
            marker, limit, offset = listing.pagination(
                params, max_limit=self._conf.osapi_max_limit)
            sort = listing.sort(params)
        if version.matches(mv.RESOURCE_FILTER):
            listing.reject_invalid_filters(ctx, params, ALLOWED_FILTERS,
                                           like=version.matches(mv.LIKE_FILTER))
        rows = db_messages.get_all(
            self._db, project_id=None if ctx.is_admin else ctx.project_id, filters=params,
            marker=marker, limit=limit, offset=offset, sort=sort)
        resp.media = view.collection(rows, base=self._base(req), project_id=ctx.project_id,
                                     params=dict(req.params), limit=limit)


class Message(_Base):
    """GET/DELETE /messages/{message_id}."""

    def on_get(self, req: falcon.Request, resp: falcon.Response, message_id: str) -> None:
        """:raises MessageNotFound:"""
        self._start(req)
        row = self._load(req, message_id)
        self._enforcer.authorize(req.context.ctx, policy.GET_POLICY,
                                 {'project_id': row.project_id})
        resp.media = {'message': view.detail(row, base=self._base(req),
                                             project_id=req.context.ctx.project_id)}

    def on_delete(self, req: falcon.Request, resp: falcon.Response, message_id: str) -> None:
        """:raises MessageNotFound: (204 on success)"""
        self._start(req)
        row = self._load(req, message_id)
        self._enforcer.authorize(req.context.ctx, policy.DELETE_POLICY,
                                 {'project_id': row.project_id})
        db_messages.delete(self._db, row.id)
        resp.status = falcon.HTTP_204
