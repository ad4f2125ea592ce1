"""cinderlike-api: /groups (3.13) — create, list, detail, show, and the group actions
`delete` (3.13) and `reset_status` (3.20).

HTTP only: parse, policy, validate, call api/operations/groups.py, render with views.
"""

import falcon
from oslo_utils import strutils

from cinderlike.api import listing, validation
from cinderlike.api import microversions as mv
from cinderlike.api.operations import group_replication, group_sources
from cinderlike.api.operations import groups as operations
from cinderlike.api.schemas import groups as schema
from cinderlike.api.views import common as common_view
from cinderlike.api.views import groups as view
from cinderlike.db import groups as db_groups
from cinderlike.policies import groups as policy
from cinderlike.states import groups as states


def _require(req: falcon.Request, version: str = mv.GROUP_VOLUME) -> None:
    if not req.context.api_version.matches(version):
        raise falcon.HTTPNotFound()


def _stripped(value):
    return value.strip() if isinstance(value, str) else value


class _Base:
    def __init__(self, conf, db, enforcer, rpc):
        self._conf = conf
        self._db = db
        self._enforcer = enforcer
        self._rpc = rpc
        self._notifier = operations.Notifier(conf)

    def _details(self, req: falcon.Request, rows: list) -> list[dict]:
        ctx, version = req.context.ctx, req.context.api_version
        ids = [row.id for row in rows]
        types = db_groups.volume_type_ids(self._db, group_ids=ids)
        volumes = None
        if version.matches(mv.GROUP_VOLUME_LIST) and listing.bool_param(dict(req.params),
                                                                         'list_volume'):
            volumes = db_groups.volume_ids(self._db, group_ids=ids)
        project = self._enforcer.allowed(ctx, policy.GROUP_ATTRIBUTES_POLICY)
        return [view.detail(row, version=version, volume_types=types[row.id],
                            volumes=None if volumes is None else volumes[row.id],
                            project=project) for row in rows]

    def _target(self, row) -> dict:
        return {'project_id': row.project_id, 'user_id': row.user_id}


class Groups(_Base):
    """GET /groups, GET /groups/detail, POST /groups."""

    def _list(self, req: falcon.Request, *, detail: bool) -> dict:
        """:raises Invalid, InvalidInput, MarkerNotFound:"""
        _require(req)
        ctx, version = req.context.ctx, req.context.api_version
        self._enforcer.authorize(ctx, policy.GET_ALL_POLICY)
        params = dict(req.params)
        marker, limit, offset = listing.pagination(params, max_limit=self._conf.osapi_max_limit)
        sort = listing.sort(params)
        params.pop('list_volume', None)
        if version.matches(mv.RESOURCE_FILTER):
            listing.reject_invalid_filters(ctx, params, states.FILTERS,
                                           like=version.matches(mv.LIKE_FILTER))
        rows = operations.listed(self._db, ctx, db_groups.LISTING, params, marker=marker,
                                 limit=limit, offset=offset, sort=sort)
        items = self._details(req, rows) if detail else [view.summary(row) for row in rows]
        next_href = common_view.Links.of(self._conf, req).page_after(
            'groups/detail' if detail else 'groups', dict(req.params), rows, limit=limit)
        return view.collection(items, next_href=next_href)

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        resp.media = self._list(req, detail=False)

    def on_get_detail(self, req: falcon.Request, resp: falcon.Response) -> None:
        resp.media = self._list(req, detail=True)

    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        """:raises ValidationError, GroupTypeNotFound, VolumeTypeNotFound, Invalid,
        InvalidInput, GroupLimitExceeded:"""
        _require(req)
        body = validation.load_body(req)
        validation.validate(schema.create, body)
        ctx = req.context.ctx
        self._enforcer.authorize(ctx, policy.CREATE_POLICY)
        wanted = body['group']
        group = operations.create(
            self._conf, self._db, self._rpc, ctx, name=_stripped(wanted.get('name')),
            description=_stripped(wanted.get('description')),
            group_type=wanted['group_type'], volume_types=wanted['volume_types'],
            availability_zone=wanted.get('availability_zone'))
        resp.status = falcon.HTTP_202
        resp.media = {'group': view.summary(group)}


class GroupsFromSource(_Base):
    """POST /groups/action {"create-from-src": {group_snapshot_id | source_group_id}} (3.14)."""

    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        """:raises ValidationError, GroupSnapshotNotFound, GroupNotFound, Invalid*,
        OverQuota:"""
        _require(req, mv.GROUP_SNAPSHOTS)
        body = validation.load_body(req)
        action = validation.action_name(req)
        if action != 'create-from-src':
            raise validation.no_such_action(action)
        validation.validate(schema.create_from_source, body)
        ctx = req.context.ctx
        self._enforcer.authorize(ctx, policy.CREATE_POLICY)
        wanted = body['create-from-src']
        group = group_sources.create_from_src(
            self._conf, self._db, self._rpc, ctx, name=_stripped(wanted.get('name')),
            description=_stripped(wanted.get('description')),
            group_snapshot_id=wanted.get('group_snapshot_id'),
            source_group_id=wanted.get('source_group_id'))
        resp.status = falcon.HTTP_202
        resp.media = {'group': view.summary(group)}


class Group(_Base):
    """GET, PUT /groups/{group_id}."""

    def on_get(self, req: falcon.Request, resp: falcon.Response, group_id: str) -> None:
        """:raises GroupNotFound, Invalid: (a group migrated from a consistency group)"""
        _require(req)
        ctx = req.context.ctx
        group = operations.get(self._db, ctx, group_id=group_id)
        self._enforcer.authorize(ctx, policy.GET_POLICY, self._target(group))
        operations.check_not_cgsnapshot_type(group.group_type_id,
                                             operations.reserved_type_id(self._db))
        resp.media = {'group': self._details(req, [group])[0]}

    def on_put(self, req: falcon.Request, resp: falcon.Response, group_id: str) -> None:
        """:raises ValidationError, GroupNotFound, InvalidVolume, InvalidGroup:"""
        _require(req)
        body = validation.load_body(req)
        validation.validate(schema.update, body)
        ctx = req.context.ctx
        group = operations.get(self._db, ctx, group_id=group_id)
        self._enforcer.authorize(ctx, policy.UPDATE_POLICY, self._target(group))
        wanted = body['group']
        operations.update(self._db, self._rpc, ctx, group_id=group_id,
                          name=_stripped(wanted.get('name')),
                          description=_stripped(wanted.get('description')),
                          add_volumes=wanted.get('add_volumes'),
                          remove_volumes=wanted.get('remove_volumes'))
        resp.status = falcon.HTTP_202


class GroupActions(_Base):
    """POST /groups/{group_id}/action: delete (3.13), reset_status (3.20, admin), and the
    replication actions (3.38), which every cinderlike backend refuses."""

    def _delete(self, req, ctx, group_id, body) -> None:
        group = operations.get(self._db, ctx, group_id=group_id)
        self._enforcer.authorize(ctx, policy.DELETE_POLICY, self._target(group))
        delete_volumes = strutils.bool_from_string(
            body['delete'].get('delete-volumes', False), strict=True)
        operations.delete(self._conf, self._db, self._rpc, ctx, group_id=group_id,
                          delete_volumes=delete_volumes)

    def _reset_status(self, req, ctx, group_id, body) -> None:
        # NOTE(order): as Cinder, the group is looked up (404) before the rule (403).
        operations.get(self._db, ctx, group_id=group_id)
        self._enforcer.authorize(ctx, policy.RESET_STATUS)
        operations.reset_status(self._db, self._notifier, ctx, group_id=group_id,
                                status=body['reset_status']['status'].lower())

    def _replication(self, req, ctx, group_id, body) -> None:
        action = validation.action_name(req)
        group = operations.get(self._db, ctx, group_id=group_id)
        self._enforcer.authorize(ctx, policy.REPLICATION_POLICIES[action], self._target(group))
        group_replication.refuse(self._db, group, action)

    # action -> (body schema, first microversion, handler)
    _ACTIONS = {'delete': (schema.delete, mv.GROUP_VOLUME, _delete),
                'reset_status': (schema.reset_status, mv.GROUP_VOLUME_RESET_STATUS,
                                 _reset_status),
                'enable_replication': (schema.enable_replication, mv.GROUP_REPLICATION,
                                       _replication),
                'disable_replication': (schema.disable_replication, mv.GROUP_REPLICATION,
                                        _replication),
                'failover_replication': (schema.failover_replication, mv.GROUP_REPLICATION,
                                         _replication),
                'list_replication_targets': (schema.list_replication, mv.GROUP_REPLICATION,
                                             _replication)}

    def on_post(self, req: falcon.Request, resp: falcon.Response, group_id: str) -> None:
        """:raises Invalid: not exactly one action key, or an action groups do not have."""
        _require(req)
        body = validation.load_body(req)
        action = validation.action_name(req)
        if action not in self._ACTIONS:
            raise validation.no_such_action(action)
        body_schema, version, handler = self._ACTIONS[action]
        _require(req, version)
        validation.validate(body_schema, body, formats=schema.FORMATS)
        handler(self, req, req.context.ctx, group_id, body)
        resp.status = falcon.HTTP_202
