"""cinderlike-api: /group_snapshots (3.14) — create, list, detail, show, delete and
reset_status (3.19).

HTTP only: parse, policy, validate, call api/operations/group_snapshots.py, render.
"""

import falcon

from cinderlike.api import listing, validation
from cinderlike.api import microversions as mv
from cinderlike.api.operations import group_snapshots as operations
from cinderlike.api.operations import groups as group_operations
from cinderlike.api.schemas import group_snapshots as schema
from cinderlike.api.views import common as common_view
from cinderlike.api.views import group_snapshots as view
from cinderlike.db import group_snapshots as db_group_snapshots
from cinderlike.policies import group_snapshots as policy
from cinderlike.states import group_snapshots as states


def _require(req: falcon.Request, version: str = mv.GROUP_SNAPSHOTS) -> None:
    if not req.context.api_version.matches(version):
        raise falcon.HTTPNotFound()


def _stripped(value):
    return value.strip() if isinstance(value, str) else value


def _target(row) -> dict:
    return {'project_id': row.project_id, 'user_id': row.user_id}


class _Base:
    def __init__(self, conf, db, enforcer, rpc):
        self._conf = conf
        self._db = db
        self._enforcer = enforcer
        self._rpc = rpc
        self._notifier = operations.Notifier(conf)

    def _detail(self, req: falcon.Request, row) -> dict:
        return view.detail(row, version=req.context.api_version, project=self._enforcer.allowed(
            req.context.ctx, policy.GROUP_SNAPSHOT_ATTRIBUTES_POLICY))

    def _load(self, req: falcon.Request, group_snapshot_id: str, rule: str):
        """:raises GroupSnapshotNotFound, PolicyNotAuthorized, Invalid: (a migrated one)"""
        ctx = req.context.ctx
        row = operations.get(self._db, ctx, group_snapshot_id=group_snapshot_id)
        self._enforcer.authorize(ctx, rule, _target(row))
        group_operations.check_not_cgsnapshot_type(row.group_type_id,
                                                   group_operations.reserved_type_id(self._db))
        return row


class GroupSnapshots(_Base):
    """GET /group_snapshots, GET /group_snapshots/detail, POST /group_snapshots."""

    def _list(self, req: falcon.Request, *, detail: bool) -> dict:
        """:raises Invalid, InvalidInput, MarkerNotFound:"""
        _require(req)
        ctx, version = req.context.ctx, req.context.api_version
        self._enforcer.authorize(ctx, policy.GET_ALL_POLICY)
        params = dict(req.params)
        marker = offset = sort = None
        limit = self._conf.osapi_max_limit
        # NOTE(pagination): before 3.29 Cinder ignores every query parameter here.
        if version.matches(mv.GROUP_SNAPSHOT_PAGINATION):
            marker, limit, offset = listing.pagination(params, max_limit=limit)
            sort = listing.sort(params)
        else:
            params = {}
        if version.matches(mv.RESOURCE_FILTER):
            listing.reject_invalid_filters(ctx, params, states.FILTERS,
                                           like=version.matches(mv.LIKE_FILTER))
        rows = group_operations.listed(self._db, ctx, db_group_snapshots.LISTING, params,
                                       marker=marker, limit=limit, offset=offset, sort=sort)
        items = ([self._detail(req, row) for row in rows] if detail
                 else [view.summary(row, with_type=False) for row in rows])
        next_href = common_view.Links.of(self._conf, req).page_after(
            'group_snapshots/detail' if detail else 'group_snapshots', dict(req.params), rows,
            limit=limit)
        return view.collection(items, next_href=next_href)

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        resp.media = self._list(req, detail=False)

    def on_get_detail(self, req: falcon.Request, resp: falcon.Response) -> None:
        resp.media = self._list(req, detail=True)

    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        """:raises ValidationError, GroupNotFound, Invalid, InvalidGroup, InvalidVolume,
        OverQuota:"""
        _require(req)
        body = validation.load_body(req)
        validation.validate(schema.create, body)
        ctx = req.context.ctx
        wanted = body['group_snapshot']
        group = group_operations.get(self._db, ctx, group_id=wanted['group_id'])
        self._enforcer.authorize(ctx, policy.CREATE_POLICY, _target(group))
        row = operations.create(self._conf, self._db, self._rpc, ctx, group_id=group.id,
                                name=_stripped(wanted.get('name')),
                                description=_stripped(wanted.get('description')))
        resp.status = falcon.HTTP_202
        resp.media = {'group_snapshot': view.summary(row)}


class GroupSnapshot(_Base):
    """GET, DELETE /group_snapshots/{group_snapshot_id}."""

    def on_get(self, req: falcon.Request, resp: falcon.Response,
               group_snapshot_id: str) -> None:
        _require(req)
        row = self._load(req, group_snapshot_id, policy.GET_POLICY)
        resp.media = {'group_snapshot': self._detail(req, row)}

    def on_delete(self, req: falcon.Request, resp: falcon.Response,
                  group_snapshot_id: str) -> None:
        """:raises GroupSnapshotNotFound, InvalidGroupSnapshot:"""
        _require(req)
        self._load(req, group_snapshot_id, policy.DELETE_POLICY)
        operations.delete(self._db, self._rpc, req.context.ctx,
                          group_snapshot_id=group_snapshot_id)
        resp.status = falcon.HTTP_202


class GroupSnapshotActions(_Base):
    """POST /group_snapshots/{id}/action {"reset_status": {"status": ...}} (3.19, admin)."""

    _ACTIONS = {'reset_status': (schema.reset_status, mv.GROUP_SNAPSHOT_RESET_STATUS)}

    def on_post(self, req: falcon.Request, resp: falcon.Response,
                group_snapshot_id: str) -> None:
        """:raises Invalid: an action group snapshots do not have."""
        _require(req)
        body = validation.load_body(req)
        action = validation.action_name(req)
        if action not in self._ACTIONS:
            raise validation.no_such_action(action)
        body_schema, version = self._ACTIONS[action]
        _require(req, version)
        validation.validate(body_schema, body, formats=schema.FORMATS)
        ctx = req.context.ctx
        # NOTE(order): as Cinder, the group snapshot is looked up (404) before the rule.
        operations.get(self._db, ctx, group_snapshot_id=group_snapshot_id)
        self._enforcer.authorize(ctx, policy.RESET_STATUS)
        operations.reset_status(self._db, self._notifier, ctx,
                                group_snapshot_id=group_snapshot_id,
                                status=body['reset_status']['status'].lower())
        resp.status = falcon.HTTP_202
