"""cinderlike-api: /group_types (3.11) — list, show (`default` too), create, update and
delete group types, and /group_types/{id}/group_specs[/{key}].

HTTP only: parse, policy, validate, call api/operations/group_types.py, render.
"""

import falcon
from oslo_utils import strutils

from cinderlike import exception
from cinderlike.api import listing, validation
from cinderlike.api import microversions as mv
from cinderlike.api.operations import group_types as operations
from cinderlike.api.resources import types as volume_types
from cinderlike.api.schemas import group_types as schema
from cinderlike.api.views import common as common_view
from cinderlike.api.views import group_types as view
from cinderlike.db import group_types as db_group_types
from cinderlike.policies import group_types as policy


def _require(req: falcon.Request) -> None:
    if not req.context.api_version.matches(mv.GROUP_TYPE):
        raise falcon.HTTPNotFound()


class _Base:
    def __init__(self, conf, db, enforcer, notifiers):
        self._conf = conf
        self._db = db
        self._enforcer = enforcer
        self._notifiers = notifiers

    def _specs_shown(self, ctx) -> bool:
        return self._enforcer.allowed(ctx, policy.SHOW_ACCESS_POLICY)

    def _visible(self, ctx, type_id) -> db_group_types.GroupTypeRecord:
        """:raises GroupTypeNotFound:"""
        return db_group_types.get(self._db, type_id=type_id, project_id=ctx.project_id,
                                  is_admin=ctx.is_admin)


class GroupTypes(_Base):
    """GET /group_types[?is_public=], POST /group_types (admin)."""

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        _require(req)
        ctx = req.context.ctx
        params = dict(req.params)
        marker, limit, offset = listing.pagination(params, max_limit=self._conf.osapi_max_limit)
        sort = listing.sort(params)
        # NOTE(is_public): only admins choose; everyone else lists public + shared types.
        is_public = (volume_types.is_public_filter(params.get('is_public'))
                     if ctx.is_admin else True)
        records = db_group_types.get_all(self._db, project_id=ctx.project_id,
                                         is_public=is_public, marker=marker, limit=limit,
                                         offset=offset, sort=sort)
        next_href = None
        if records and len(records) == limit:
            next_href = common_view.Links.of(self._conf, req).next(
                'group_types', dict(req.params), records[-1].id)
        resp.media = view.index(records, specs=self._specs_shown(ctx), next_href=next_href)

    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        """:raises ValidationError, PolicyNotAuthorized, HTTPConflict:"""
        _require(req)
        body = validation.load_body(req)
        validation.validate(schema.create, body)
        ctx = req.context.ctx
        self._enforcer.authorize(ctx, policy.CREATE_POLICY)
        wanted = body['group_type']
        is_public = strutils.bool_from_string(wanted.get('is_public', True), strict=True)
        try:
            record = operations.create(self._db, self._notifiers, ctx, name=wanted['name'],
                                       description=wanted.get('description'),
                                       is_public=is_public,
                                       group_specs=wanted.get('group_specs') or {})
        except exception.GroupTypeExists as err:
            raise falcon.HTTPConflict(description=err.msg) from None
        resp.status = falcon.HTTP_202
        resp.media = view.show(record, specs=self._specs_shown(ctx))


class GroupType(_Base):
    """GET/PUT/DELETE /group_types/{group_type_id}; GET /group_types/default."""

    def on_get(self, req: falcon.Request, resp: falcon.Response, group_type_id: str) -> None:
        _require(req)
        ctx = req.context.ctx
        if group_type_id == 'default':
            record = db_group_types.get_default(
                self._db, conf_default_name=self._conf.default_group_type)
            if record is None:
                raise falcon.HTTPNotFound(description='Default group type can not be found.')
        else:
            record = self._visible(ctx, group_type_id)
        resp.media = view.show(record, specs=self._specs_shown(ctx))

    def on_put(self, req: falcon.Request, resp: falcon.Response, group_type_id: str) -> None:
        """:raises Invalid: blank name, nothing to change; HTTPConflict: name taken."""
        _require(req)
        body = validation.load_body(req)
        validation.validate(schema.update, body)
        ctx = req.context.ctx
        self._enforcer.authorize(ctx, policy.UPDATE_POLICY)
        wanted = body['group_type']
        name, description = wanted.get('name'), wanted.get('description')
        is_public = wanted.get('is_public')
        if is_public is not None:
            is_public = strutils.bool_from_string(is_public, strict=True)
        if name and not name.strip():
            raise exception.Invalid('Group type name can not be empty.')
        if name is None and description is None and is_public is None:
            raise exception.Invalid('Specify group type name, description or a combination '
                                    'thereof.')
        try:
            record = operations.update(self._db, self._notifiers, ctx, type_id=group_type_id,
                                       name=name, description=description,
                                       is_public=is_public)
        except exception.GroupTypeExists as err:
            raise falcon.HTTPConflict(description=err.msg) from None
        resp.media = view.show(record, specs=self._specs_shown(ctx))

    def on_delete(self, req: falcon.Request, resp: falcon.Response,
                  group_type_id: str) -> None:
        """:raises GroupTypeNotFound, GroupTypeInUse:"""
        _require(req)
        self._enforcer.authorize(req.context.ctx, policy.DELETE_POLICY)
        operations.delete(self._db, self._notifiers, req.context.ctx, type_id=group_type_id)
        resp.status = falcon.HTTP_202


class GroupSpecs(_Base):
    """GET /group_types/{id}/group_specs, POST ... {group_specs: {...}} (admin)."""

    def on_get(self, req: falcon.Request, resp: falcon.Response, group_type_id: str) -> None:
        _require(req)
        ctx = req.context.ctx
        self._enforcer.authorize(ctx, policy.SPEC_GET_ALL_POLICY)
        resp.media = {'group_specs': dict(self._visible(ctx, group_type_id).group_specs)}

    def on_post(self, req: falcon.Request, resp: falcon.Response, group_type_id: str) -> None:
        _require(req)
        body = validation.load_body(req)
        validation.validate(schema.specs_create, body)
        ctx = req.context.ctx
        self._enforcer.authorize(ctx, policy.SPEC_CREATE_POLICY)
        self._visible(ctx, group_type_id)
        operations.set_specs(self._db, self._notifiers, ctx, type_id=group_type_id,
                             specs=body['group_specs'])
        resp.status = falcon.HTTP_202
        resp.media = body


class GroupSpec(_Base):
    """GET/PUT/DELETE /group_types/{id}/group_specs/{key}; PUT's body is `{key: value}`."""

    def on_get(self, req: falcon.Request, resp: falcon.Response, group_type_id: str,
               key: str) -> None:
        _require(req)
        ctx = req.context.ctx
        self._enforcer.authorize(ctx, policy.SPEC_GET_POLICY)
        specs = self._visible(ctx, group_type_id).group_specs
        if key not in specs:
            raise falcon.HTTPNotFound(description=f'Group Type {group_type_id} has no extra '
                                                  f'spec with key {key}.')
        resp.media = {key: specs[key]}

    def on_put(self, req: falcon.Request, resp: falcon.Response, group_type_id: str,
               key: str) -> None:
        _require(req)
        body = validation.load_body(req)
        validation.validate(schema.specs_update, body)
        ctx = req.context.ctx
        self._enforcer.authorize(ctx, policy.SPEC_UPDATE_POLICY)
        self._visible(ctx, group_type_id)
        if key not in body:
            raise exception.Invalid('Request body and URI mismatch')
        operations.set_specs(self._db, self._notifiers, ctx, type_id=group_type_id, specs=body,
                             key=key)
        resp.media = body

    def on_delete(self, req: falcon.Request, resp: falcon.Response, group_type_id: str,
                  key: str) -> None:
        _require(req)
        ctx = req.context.ctx
        self._enforcer.authorize(ctx, policy.SPEC_DELETE_POLICY)
        self._visible(ctx, group_type_id)
        operations.delete_spec(self._db, self._notifiers, ctx, type_id=group_type_id, key=key)
        resp.status = falcon.HTTP_202
