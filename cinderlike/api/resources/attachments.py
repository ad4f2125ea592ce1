"""cinderlike-api: /attachments (3.27) — create, list, detail, show, update, delete and
os-complete (3.44).

HTTP only: parse, policy, validate, call api/operations/attachments.py, render with views.
"""

import falcon

from cinderlike import exception, notifications
from cinderlike.api import listing, validation
from cinderlike.api import microversions as mv
from cinderlike.api.operations import attachments as operations
from cinderlike.api.schemas import attachments as schema
from cinderlike.api.views import attachments as view
from cinderlike.policies import attachments as policy
from cinderlike.states import attachments as states


def _require(req: falcon.Request, version: str = mv.NEW_ATTACH) -> None:
    if not req.context.api_version.matches(version):
        raise falcon.HTTPNotFound()


def _server_error(action: str, error: exception.CinderlikeException):
    """Cinder's 500 for a failure other than a refusal (its attachments controller); a
    call that could not be sent (undone) keeps its 503."""
    if isinstance(error, (exception.Invalid, exception.NotFound, exception.NotAuthorized,
                          exception.TemporarilyUnavailable)):
        return error
    return falcon.HTTPInternalServerError(description=f'Unable to {action} ({error.msg}).')


class _Base:
    def __init__(self, conf, db, enforcer, rpc):
        self._db = db
        self._enforcer = enforcer
        self._rpc = rpc
        self._notifier = notifications.VolumeNotifier(conf, db, host=conf.host)
        self._max_limit = conf.osapi_max_limit


class Attachments(_Base):
    """GET /attachments, GET /attachments/detail, POST /attachments."""

    def _list(self, req: falcon.Request, *, detailed: bool) -> dict:
        """:raises InvalidInput, MarkerNotFound:"""
        _require(req)
        ctx = req.context.ctx
        params = dict(req.params)
        marker, limit, offset = listing.pagination(params, max_limit=self._max_limit)
        sort = listing.sort(params)
        all_tenants = listing.bool_param(params, 'all_tenants')
        params.pop('all_tenants', None)
        listing.reject_invalid_filters(ctx, params, states.FILTERS,
                                       like=req.context.api_version.matches(mv.LIKE_FILTER))
        rows = operations.get_all(self._db, ctx, all_tenants=all_tenants, filters=params,
                                  marker=marker, limit=limit, offset=offset, sort=sort)
        return view.collection(rows, detailed=detailed)

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        resp.media = self._list(req, detailed=False)

    def on_get_detail(self, req: falcon.Request, resp: falcon.Response) -> None:
        resp.media = self._list(req, detailed=True)

    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        """:raises ValidationError, VolumeNotFound, InvalidVolume, InvalidInput:"""
        _require(req)
        body = validation.load_body(req)
        with_mode = req.context.api_version.matches(mv.ATTACHMENT_CREATE_MODE_ARG)
        validation.validate(schema.create_v3_54 if with_mode else schema.create, body)
        wanted = body['attachment']
        try:
            row = operations.create(self._db, self._rpc, self._enforcer, req.context.ctx,
                                    volume_id=wanted['volume_uuid'],
                                    instance_uuid=wanted.get('instance_uuid'),
                                    connector=wanted.get('connector'),
                                    mode=wanted.get('mode') if with_mode else None)
        except exception.CinderlikeException as error:
            raise _server_error('create attachment for volume', error) from error
        resp.media = view.one(row)


class Attachment(_Base):
    """GET, PUT, DELETE /attachments/{attachment_id}."""

    def on_get(self, req: falcon.Request, resp: falcon.Response, attachment_id: str) -> None:
        """:raises VolumeAttachmentNotFound:"""
        _require(req)
        resp.media = view.one(operations.get(self._db, req.context.ctx,
                                             attachment_id=attachment_id))

    def on_put(self, req: falcon.Request, resp: falcon.Response, attachment_id: str) -> None:
        """:raises ValidationError, VolumeAttachmentNotFound, InvalidInput, ResourceConflict:"""
        _require(req)
        body = validation.load_body(req)
        validation.validate(schema.update, body)
        try:
            row = operations.update(self._db, self._rpc, self._enforcer, req.context.ctx,
                                    attachment_id=attachment_id,
                                    connector=body['attachment']['connector'])
        except exception.CinderlikeException as error:
            raise _server_error('update attachment', error) from error
        resp.media = view.one(row)

    def on_delete(self, req: falcon.Request, resp: falcon.Response,
                  attachment_id: str) -> None:
        """:raises VolumeAttachmentNotFound, InvalidVolume:"""
        _require(req)
        ctx = req.context.ctx
        attachment = operations.get(self._db, ctx, attachment_id=attachment_id)
        self._enforcer.authorize(ctx, policy.DELETE_POLICY,
                                 {'project_id': ctx.project_id})
        left = operations.delete(self._db, self._rpc, ctx, attachment_id=attachment.id,
                                 notifier=self._notifier)
        resp.media = view.collection(left)


class AttachmentActions(_Base):
    """POST /attachments/{attachment_id}/action {"os-complete": null} (3.44) → 204."""

    def on_post(self, req: falcon.Request, resp: falcon.Response, attachment_id: str) -> None:
        """:raises ValidationError, VolumeAttachmentNotFound, InvalidVolume:"""
        _require(req, mv.NEW_ATTACH_COMPLETION)
        body = validation.load_body(req)
        validation.validate(schema.complete, body)
        operations.complete(self._db, req.context.ctx, attachment_id=attachment_id,
                            enforcer=self._enforcer, notifier=self._notifier)
        resp.status = falcon.HTTP_204
