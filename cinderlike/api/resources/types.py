"""cinderlike-api: /types — list, show, create, update and delete volume types, and the
addProjectAccess/removeProjectAccess actions.

Readers see public types and the private ones shared with their project; admins see all.
"""

import ast
import contextlib

import falcon
from oslo_utils import strutils

from cinderlike import exception
from cinderlike.api import listing, validation
from cinderlike.api import microversions as mv
from cinderlike.api.operations import types as operations
from cinderlike.api.schemas import types as schema
from cinderlike.api.views import common as common_view
from cinderlike.api.views import types as view
from cinderlike.db import volume_types as db_types
from cinderlike.policies import types as policy

_USER_FILTERS = ('is_public', 'extra_specs')


@contextlib.contextmanager
def plain_conflicts():
    """Cinder's type controllers answer these as webob errors carrying the bare message."""
    try:
        yield
    except (exception.VolumeTypeExists, exception.VolumeTypeAccessExists) as err:
        raise falcon.HTTPConflict(description=err.msg) from None
    except exception.VolumeTypeDefaultMisconfiguredError as err:
        raise falcon.HTTPInternalServerError(description=err.msg) from None


def _view_flags(enforcer, ctx) -> dict:
    return {'specs': enforcer.allowed(ctx, policy.EXTRA_SPEC_POLICY),
            'sensitive': enforcer.allowed(ctx, policy.SPECS_READ_SENSITIVE_POLICY),
            'qos': enforcer.allowed(ctx, policy.QOS_POLICY),
            'access': enforcer.allowed(ctx, policy.TYPE_ACCESS_POLICY)}


def is_public_filter(value):
    """Cinder's _parse_is_public: default public only, 'none' both, else a strict boolean."""
    if value is None:
        return True
    if value.lower() == 'none':
        return None
    try:
        return strutils.bool_from_string(value, strict=True)
    except ValueError:
        raise exception.Invalid(f'Invalid is_public filter [{value}]') from None


def _extra_specs_filter(value):
    """`extra_specs={'k': 'v'}` as a dict literal; anything else is taken as it is."""
    try:
        parsed = ast.literal_eval(value)
    except (ValueError, SyntaxError):
        return value
    return parsed


def _listing_filters(req: falcon.Request, ctx, params: dict) -> dict:
    """The query's filters after Cinder's per-microversion checks for non-admins.

    :raises Invalid: (3.52+) a non-admin used a filter other than is_public/extra_specs.
    """
    if req.context.api_version.matches(mv.SUPPORT_VOLUME_TYPE_FILTER):
        listing.reject_invalid_filters(ctx, params, _USER_FILTERS, like=False)
        return params
    if ctx.is_admin:
        return params
    return {key: value for key, value in params.items() if key == 'is_public'}


class Types:
    """GET /types[?is_public=&extra_specs=], POST /types (admin)."""

    def __init__(self, conf, db, enforcer, notifiers):
        self._conf = conf
        self._db = db
        self._enforcer = enforcer
        self._notifiers = notifiers

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        ctx = req.context.ctx
        self._enforcer.authorize(ctx, policy.GET_ALL_POLICY)
        params = dict(req.params)
        marker, limit, offset = listing.pagination(params, max_limit=self._conf.osapi_max_limit)
        sort = listing.sort(params)
        filters = _listing_filters(req, ctx, params)
        # NOTE(is_public): only admins choose; everyone else lists public + shared types.
        is_public = is_public_filter(filters.pop('is_public', None)) if ctx.is_admin else True
        extra_specs = filters.pop('extra_specs', None)
        if extra_specs is not None:
            extra_specs = _extra_specs_filter(extra_specs)
            if not isinstance(extra_specs, dict):
                filters['extra_specs'] = extra_specs
                extra_specs = None
        records = db_types.get_all(self._db, project_id=ctx.project_id, is_public=is_public,
                                   extra_specs=extra_specs, filters=filters, marker=marker,
                                   limit=limit, offset=offset, sort=sort)
        next_href = common_view.Links.of(self._conf, req).page_after(
            'types', dict(req.params), records, limit=limit)
        resp.media = view.index(records, next_href=next_href,
                                **_view_flags(self._enforcer, ctx))

    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        """:raises ValidationError, PolicyNotAuthorized, HTTPConflict:"""
        body = validation.load_body(req)
        validation.validate(schema.create, body)
        ctx = req.context.ctx
        self._enforcer.authorize(ctx, policy.CREATE_POLICY)
        wanted = body['volume_type']
        is_public = strutils.bool_from_string(
            wanted.get('os-volume-type-access:is_public', True), strict=True)
        with plain_conflicts():
            record = operations.create(
                self._db, self._notifiers, ctx, name=wanted['name'],
                description=wanted.get('description'), is_public=is_public,
                extra_specs=wanted.get('extra_specs') or {})
        resp.media = view.managed(record,
                                  access=self._enforcer.allowed(ctx, policy.TYPE_ACCESS_POLICY))


class Type:
    """GET/PUT/DELETE /types/{type_id}; GET /types/default is the caller's default type."""

    def __init__(self, conf, db, enforcer, notifiers):
        self._conf = conf
        self._db = db
        self._enforcer = enforcer
        self._notifiers = notifiers

    def on_get(self, req: falcon.Request, resp: falcon.Response, type_id: str) -> None:
        ctx = req.context.ctx
        if type_id == 'default':
            record = db_types.get_default_for_project(
                self._db, project_id=ctx.project_id,
                conf_default_name=self._conf.default_volume_type)
        else:
            record = db_types.get(self._db, type_id=type_id, project_id=ctx.project_id,
                                  is_admin=ctx.is_admin)
        self._enforcer.authorize(ctx, policy.GET_POLICY)
        resp.media = view.show(record, **_view_flags(self._enforcer, ctx))

    def on_put(self, req: falcon.Request, resp: falcon.Response, type_id: str) -> None:
        body = validation.load_body(req)
        validation.validate(schema.update, body)
        ctx = req.context.ctx
        self._enforcer.authorize(ctx, policy.UPDATE_POLICY)
        wanted = body['volume_type']
        name, description = wanted.get('name'), wanted.get('description')
        is_public = wanted.get('is_public')
        if is_public is not None:
            is_public = strutils.bool_from_string(is_public, strict=True)
        if name is not None and not name.strip():
            raise exception.Invalid('Volume type name can not be empty.')
        if name is None and description is None and is_public is None:
            raise exception.Invalid('Specify volume type name, description, is_public or a '
                                    'combination thereof.')
        with plain_conflicts():
            record = operations.update(self._db, self._notifiers, ctx, type_id=type_id,
                                       name=name, description=description, is_public=is_public)
        resp.media = view.managed(record)

    def on_delete(self, req: falcon.Request, resp: falcon.Response, type_id: str) -> None:
        self._enforcer.authorize(req.context.ctx, policy.DELETE_POLICY)
        with plain_conflicts():
            operations.delete(self._db, self._notifiers, req.context.ctx, type_id=type_id,
                              conf_default_name=self._conf.default_volume_type)
        resp.status = falcon.HTTP_202


# action -> (body schema, rule, grant?)
_ACTIONS = {
    'addProjectAccess': (schema.add_project_access, policy.ADD_PROJECT_POLICY, True),
    'removeProjectAccess': (schema.remove_project_access, policy.REMOVE_PROJECT_POLICY, False),
}


class TypeAction:
    """POST /types/{type_id}/action {addProjectAccess|removeProjectAccess: {project}} (admin)."""

    def __init__(self, db, enforcer, notifiers):
        self._db = db
        self._enforcer = enforcer
        self._notifiers = notifiers

    def on_post(self, req: falcon.Request, resp: falcon.Response, type_id: str) -> None:
        """:raises Invalid: not exactly one action key, or an action types do not have."""
        body = validation.load_body(req)
        action = validation.action_name(req)
        if action not in _ACTIONS:
            raise validation.no_such_action(action)
        body_schema, rule, grant = _ACTIONS[action]
        validation.validate(body_schema, body)
        self._enforcer.authorize(req.context.ctx, rule)
        with plain_conflicts():
            operations.change_access(self._db, self._notifiers, req.context.ctx,
                                     type_id=type_id, project_id=body[action]['project'],
                                     add=grant)
        resp.status = falcon.HTTP_202

