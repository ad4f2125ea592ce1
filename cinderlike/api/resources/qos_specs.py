"""cinderlike-api: /qos-specs — create, list, show, set and unset keys, delete, and the
associations of QoS specs with volume types (Cinder's qos_specs_manage extension, admin only).
"""

import contextlib

import falcon

from cinderlike import exception
from cinderlike.api import listing, validation
from cinderlike.api.operations import qos_specs as operations
from cinderlike.api.schemas import qos_specs as schema
from cinderlike.api.views import common as common_view
from cinderlike.api.views import qos_specs as view
from cinderlike.db import qos_specs as db_qos
from cinderlike.policies import qos_specs as policy

# Filters non-admins keep (Cinder's allowed_search_options); admins may use any.
_USER_FILTERS = ('id', 'name', 'consumer')


@contextlib.contextmanager
def _plain_conflict():
    """Cinder answers a duplicate name as a webob 409 carrying the bare message."""
    try:
        yield
    except exception.QoSSpecsExists as err:
        raise falcon.HTTPConflict(description=err.msg) from None


class _Base:
    def __init__(self, conf, db, enforcer, notifier):
        self._conf = conf
        self._db = db
        self._enforcer = enforcer
        self._notifier = notifier

    def _links(self, req: falcon.Request) -> common_view.Links:
        return common_view.Links.of(self._conf, req)


class QoSSpecsCollection(_Base):
    """GET /qos-specs (limit, marker, offset, sort, column filters), POST /qos-specs."""

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        ctx = req.context.ctx
        self._enforcer.authorize(ctx, policy.GET_ALL_POLICY)
        # NOTE(params): a repeated parameter counts with its last value, as webob's.
        params = {key: value[-1] if isinstance(value, list) else value
                  for key, value in req.params.items()}
        marker, limit, offset = listing.pagination(params, max_limit=self._conf.osapi_max_limit)
        sort = listing.sort(params)
        filters = params if ctx.is_admin else {
            key: value for key, value in params.items() if key in _USER_FILTERS}
        records = db_qos.get_all(self._db, filters=filters, marker=marker, limit=limit,
                                 offset=offset, sort=sort)
        next_href = self._links(req).page_after(view.COLLECTION, dict(req.params), records,
                                                limit=limit)
        resp.media = view.index(records, next_href=next_href)

    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        """:raises ValidationError, PolicyNotAuthorized, InvalidInput, InvalidQoSSpecs,
            HTTPConflict:
        """
        body = validation.load_body(req)
        validation.validate(schema.create, body)
        ctx = req.context.ctx
        self._enforcer.authorize(ctx, policy.CREATE_POLICY)
        specs = dict(body['qos_specs'])
        name = specs.pop('name').strip()
        with _plain_conflict():
            record = operations.create(self._db, self._notifier, ctx, name=name, specs=specs)
        resp.media = view.detail(record, links=self._links(req))


class QoSSpec(_Base):
    """GET/PUT/DELETE /qos-specs/{specs_id} (DELETE ?force=)."""

    def on_get(self, req: falcon.Request, resp: falcon.Response, specs_id: str) -> None:
        self._enforcer.authorize(req.context.ctx, policy.GET_POLICY)
        record = db_qos.get(self._db, specs_id=specs_id)
        resp.media = view.detail(record, links=self._links(req))

    def on_put(self, req: falcon.Request, resp: falcon.Response, specs_id: str) -> None:
        """Set keys; the answer is the request body, as Cinder's."""
        body = validation.load_body(req)
        validation.validate(schema.set_keys, body)
        ctx = req.context.ctx
        self._enforcer.authorize(ctx, policy.UPDATE_POLICY)
        operations.update(self._db, self._notifier, ctx, specs_id=specs_id,
                          specs=body['qos_specs'])
        resp.media = body

    def on_delete(self, req: falcon.Request, resp: falcon.Response, specs_id: str) -> None:
        ctx = req.context.ctx
        self._enforcer.authorize(ctx, policy.DELETE_POLICY)
        force = listing.bool_param(req.params, 'force')
        operations.delete(self._db, self._notifier, ctx, specs_id=specs_id, force=force)
        resp.status = falcon.HTTP_202


class QoSSpecActions(_Base):
    """The member actions: PUT …/delete_keys, GET …/associations, …/associate?vol_type_id=,
    …/disassociate?vol_type_id= and …/disassociate_all.
    """

    def on_put_delete_keys(self, req: falcon.Request, resp: falcon.Response,
                           specs_id: str) -> None:
        body = validation.load_body(req)
        validation.validate(schema.unset_keys, body)
        ctx = req.context.ctx
        self._enforcer.authorize(ctx, policy.DELETE_POLICY)
        operations.delete_keys(self._db, self._notifier, ctx, specs_id=specs_id,
                               keys=body['keys'])
        resp.status = falcon.HTTP_202

    def on_get_associations(self, req: falcon.Request, resp: falcon.Response,
                            specs_id: str) -> None:
        ctx = req.context.ctx
        self._enforcer.authorize(ctx, policy.GET_ALL_POLICY)
        types = operations.associations(self._db, self._notifier, ctx, specs_id=specs_id)
        resp.media = view.associations(types)

    def on_get_associate(self, req: falcon.Request, resp: falcon.Response,
                         specs_id: str) -> None:
        ctx = req.context.ctx
        self._enforcer.authorize(ctx, policy.UPDATE_POLICY)
        operations.associate(self._db, self._notifier, ctx, specs_id=specs_id,
                             type_id=req.get_param('vol_type_id'))
        resp.status = falcon.HTTP_202

    def on_get_disassociate(self, req: falcon.Request, resp: falcon.Response,
                            specs_id: str) -> None:
        ctx = req.context.ctx
        self._enforcer.authorize(ctx, policy.UPDATE_POLICY)
        operations.disassociate(self._db, self._notifier, ctx, specs_id=specs_id,
                                type_id=req.get_param('vol_type_id'))
        resp.status = falcon.HTTP_202

    def on_get_disassociate_all(self, req: falcon.Request, resp: falcon.Response,
                                specs_id: str) -> None:
        ctx = req.context.ctx
        self._enforcer.authorize(ctx, policy.UPDATE_POLICY)
        operations.disassociate_all(self._db, self._notifier, ctx, specs_id=specs_id)
        resp.status = falcon.HTTP_202
