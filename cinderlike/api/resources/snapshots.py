"""cinderlike-api: /snapshots — list, detail, create, show, update, delete, snapshot actions.

HTTP only: parse, policy, validate, call api/operations/snapshots.py, render with views.
"""

import ast
from collections.abc import Iterator

import falcon
from oslo_utils import strutils

from cinderlike import exception, notifications
from cinderlike.api import listing, pages, validation
from cinderlike.api import microversions as mv
from cinderlike.api.operations import manageable
from cinderlike.api.operations import snapshots as operations
from cinderlike.api.operations import volumes as volume_operations
from cinderlike.api.resources import metadata
from cinderlike.api.schemas import manageable as manageable_schema
from cinderlike.api.schemas import snapshots as schema
from cinderlike.api.turns import ListingTurns
from cinderlike.api.views import snapshots as view
from cinderlike.api.views.common import Links
from cinderlike.db import snapshots as db_snapshots
from cinderlike.policies import manageable as manageable_policy
from cinderlike.policies import snapshots as policy
from cinderlike.policies import volumes as volume_policy

# Cinder's resource_filters.json for snapshots: what non-admins may filter on (3.31+).
ALLOWED_FILTERS = ('name', 'status', 'volume_id', 'metadata', 'availability_zone',
                   'consumes_quota')
# Before 3.31 other keys of non-admins are dropped silently.
LEGACY_FILTERS = ('status', 'volume_id', 'name', 'metadata')
# Cinder's convert_filter_attributes (3.31+).
_RENAMES = {'name~': 'display_name~', 'description~': 'display_description~',
            'consumes_quota': 'use_quota'}

SNAPSHOT_IN_USE_FLAG_MSG = (
    f"Since microversion {mv.SNAPSHOT_IN_USE} the 'force' flag is invalid for this request.  "
    "For backward compatability, however, when the 'force' flag is passed with a value "
    "evaluating to True, it is silently ignored.")


def snapshot_filters(ctx, params: dict, version) -> tuple[str | None, dict]:
    """(project scope, filters) for a listing: Cinder's snapshot filter rules by version."""
    filters = dict(params)
    if version.matches(mv.RESOURCE_FILTER):
        listing.reject_invalid_filters(ctx, filters, ALLOWED_FILTERS,
                                       like=version.matches(mv.LIKE_FILTER))
        filters = {_RENAMES.get(k, k): v for k, v in filters.items()}
    else:
        if not version.matches(mv.SNAPSHOT_LIST_METADATA_FILTER):
            filters.pop('metadata', None)
        filters.pop('use_quota', None)
        if not ctx.is_admin:
            filters = {k: v for k, v in filters.items() if k in LEGACY_FILTERS}
    all_tenants = listing.bool_param(filters, 'all_tenants')
    filters.pop('all_tenants', None)
    project = None if (ctx.is_admin and all_tenants) else ctx.project_id
    if 'metadata' in filters:
        try:
            filters['metadata'] = ast.literal_eval(filters['metadata'])
        except (ValueError, SyntaxError):
            pass  # a non-dict metadata filter matches nothing, as in Cinder
    if 'use_quota' in filters:
        filters['use_quota'] = listing.bool_param(filters, 'use_quota')
    if 'name' in filters:
        filters['display_name'] = filters.pop('name')
    return project, filters


def _stripped(value):
    """Cinder's clean_name_and_description."""
    return value.strip() if isinstance(value, str) else value


def allow_in_use(force, version) -> bool:
    """Whether an in-use volume may be snapshotted: `force` before 3.66, always after.

    :raises Invalid: `force=false` from 3.66 (Cinder's SNAPSHOT_IN_USE_FLAG_MSG).
    """
    forced = force is not None and strutils.bool_from_string(force, strict=True)
    if version.matches(mv.SNAPSHOT_IN_USE):
        if force is not None and not forced:
            raise exception.Invalid(SNAPSHOT_IN_USE_FLAG_MSG)
        return True
    return forced


# NOTE(metadata): /snapshots/{snapshot_id}/metadata is served by api/resources/metadata.py;
# Cinder has one rule for creating and replacing a snapshot's metadata.
METADATA = metadata.Owner(
    id_field='snapshot_id',
    get=lambda db, ctx, snapshot_id: operations.get(db, ctx, snapshot_id=snapshot_id),
    read=lambda db, snapshot_id: db_snapshots.get_metadata(
        db, snapshot_ids=[snapshot_id])[snapshot_id],
    write=lambda db, snapshot_id, items, replace: db_snapshots.update_metadata(
        db, snapshot_id=snapshot_id, metadata=items, replace=replace),
    remove=lambda db, snapshot_id, key: db_snapshots.delete_metadata(
        db, snapshot_id=snapshot_id, key=key),
    missing=lambda snapshot_id, key: exception.SnapshotMetadataNotFound(
        snapshot_id=snapshot_id, metadata_key=key),
    schemas=schema, get_rule=policy.GET_METADATA_POLICY,
    create_rule=policy.UPDATE_METADATA_POLICY, update_rule=policy.UPDATE_METADATA_POLICY,
    delete_rule=policy.DELETE_METADATA_POLICY)

class SnapshotRenderer:
    """Builds snapshot views for a batch of rows with one metadata query."""

    def __init__(self, conf, db, enforcer):
        self._conf = conf
        self._db = db
        self._enforcer = enforcer
        self.collection = pages.Collection(
            conf=conf, db=db, enforcer=enforcer, name='snapshots', policy=policy.GET_ALL_POLICY,
            filters=snapshot_filters, name_sort=mv.SNAPSHOT_SORT, store=db_snapshots,
            views=self._views, links=self.links)

    def links(self, req: falcon.Request) -> Links:
        return Links.of(self._conf, req)

    def summaries(self, snapshots: list, session=None) -> Iterator[dict]:
        """Summary views, each made as it is taken (the metadata is read first)."""
        metadata = db_snapshots.get_metadata(self._db, snapshot_ids=[s.id for s in snapshots],
                                             session=session)
        return (view.summary(s, metadata[s.id]) for s in snapshots)

    def details(self, req: falcon.Request, snapshots: list, *, extensions: bool,
                session=None) -> Iterator[dict]:
        """Detail views, each made as it is taken (the metadata is read first);
        *extensions* (show, detail list) adds the extended attributes."""
        extended = extensions and self._enforcer.allowed(req.context.ctx, policy.EXTEND_ATTRIBUTE)
        metadata = db_snapshots.get_metadata(self._db, snapshot_ids=[s.id for s in snapshots],
                                             session=session)
        version = req.context.api_version
        return (view.detail(s, metadata[s.id], version=version, extended=extended)
                for s in snapshots)

    def one(self, req: falcon.Request, snapshot, *, extensions: bool) -> dict:
        return {'snapshot': next(self.details(req, [snapshot], extensions=extensions))}

    def _views(self, req: falcon.Request, snapshots: list, detail: bool,
               session) -> Iterator[dict]:
        # NOTE(extensions): a detail listing shows the extended attributes, as show does.
        return (self.details(req, snapshots, extensions=True, session=session) if detail
                else self.summaries(snapshots, session=session))


class Snapshots:
    """GET /snapshots, GET /snapshots/detail, POST /snapshots."""

    def __init__(self, conf, db, enforcer, rpc, *, turns: ListingTurns):
        self._conf = conf
        self._db = db
        self._enforcer = enforcer
        self._rpc = rpc
        self._turns = turns
        self._render = SnapshotRenderer(conf, db, enforcer)

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        self._turns.send(resp, lambda: self._render.collection.page(req, detail=False))

    def on_get_detail(self, req: falcon.Request, resp: falcon.Response) -> None:
        self._turns.send(resp, lambda: self._render.collection.page(req, detail=True))

    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        """:raises ValidationError, VolumeNotFound, Invalid, InvalidVolume, OverQuota:"""
        ctx, version = req.context.ctx, req.context.api_version
        body = validation.load_body(req)
        validation.validate(schema.create, body)
        wanted = body['snapshot']
        volume = volume_operations.get(self._db, ctx, volume_id=wanted['volume_id'])
        target = {'project_id': volume.project_id, 'user_id': volume.user_id}
        self._enforcer.authorize(ctx, volume_policy.GET_POLICY, target)
        in_use = allow_in_use(wanted.get('force'), version)
        self._enforcer.authorize(ctx, policy.CREATE_POLICY, target)
        name = wanted['name'] if 'name' in wanted else wanted.get('display_name')
        snapshot = operations.create(
            self._conf, self._db, self._rpc, ctx, volume_id=volume.id, name=_stripped(name),
            description=_stripped(wanted.get('description')), metadata=wanted.get('metadata'),
            allow_in_use=in_use)
        resp.status = falcon.HTTP_202
        resp.media = self._render.one(req, snapshot, extensions=False)


class Snapshot:
    """GET, PUT, DELETE /snapshots/{snapshot_id}."""

    def __init__(self, conf, db, enforcer, rpc):
        self._db = db
        self._enforcer = enforcer
        self._rpc = rpc
        self._render = SnapshotRenderer(conf, db, enforcer)
        self._notifier = notifications.SnapshotNotifier(conf, db, host=conf.host)

    def _load(self, req: falcon.Request, snapshot_id: str, rule: str):
        ctx = req.context.ctx
        snapshot = operations.get(self._db, ctx, snapshot_id=snapshot_id)
        self._enforcer.authorize(ctx, rule, {'project_id': snapshot.project_id,
                                             'user_id': snapshot.user_id})
        return snapshot

    def on_get(self, req: falcon.Request, resp: falcon.Response, snapshot_id: str) -> None:
        """:raises SnapshotNotFound:"""
        snapshot = self._load(req, snapshot_id, policy.GET_POLICY)
        resp.media = self._render.one(req, snapshot, extensions=True)

    def on_put(self, req: falcon.Request, resp: falcon.Response, snapshot_id: str) -> None:
        """:raises ValidationError, SnapshotNotFound:"""
        body = validation.load_body(req)
        validation.validate(schema.update, body)
        self._load(req, snapshot_id, policy.UPDATE_POLICY)
        changes = body['snapshot']
        values = {}
        for field in ('name', 'description'):
            # NOTE(alias): Cinder renames `name` over `display_name`, so it wins.
            for key in (f'display_{field}', field):
                if key in changes:
                    values[f'display_{field}'] = _stripped(changes[key])
        snapshot = operations.update(self._db, req.context.ctx, snapshot_id=snapshot_id,
                                     values=values, notifier=self._notifier)
        resp.media = self._render.one(req, snapshot, extensions=False)

    def on_delete(self, req: falcon.Request, resp: falcon.Response, snapshot_id: str) -> None:
        """:raises SnapshotNotFound, InvalidSnapshot:"""
        self._load(req, snapshot_id, policy.DELETE_POLICY)
        operations.delete(self._db, self._rpc, req.context.ctx, snapshot_id=snapshot_id)
        resp.status = falcon.HTTP_202


class SnapshotActions:
    """POST /snapshots/{snapshot_id}/action: os-reset_status, os-update_snapshot_status,
    os-force_delete, os-unmanage."""

    # action → (body schema, policy)
    _ACTIONS = {
        'os-reset_status': (schema.reset_status, policy.RESET_STATUS_POLICY),
        'os-update_snapshot_status': (schema.update_snapshot_status,
                                      policy.UPDATE_STATUS_POLICY),
        'os-force_delete': (schema.force_delete, policy.FORCE_DELETE_POLICY),
        'os-unmanage': (manageable_schema.unmanage, manageable_policy.SNAPSHOT_UNMANAGE_POLICY),
    }

    def __init__(self, conf, db, enforcer, rpc):
        self._db = db
        self._enforcer = enforcer
        self._rpc = rpc
        self._notifier = notifications.SnapshotNotifier(conf, db, host=conf.host)

    def on_post(self, req: falcon.Request, resp: falcon.Response, snapshot_id: str) -> None:
        """:raises Invalid, ValidationError, SnapshotNotFound, InvalidSnapshot:"""
        body = validation.load_body(req)
        action = validation.action_name(req)
        if action not in self._ACTIONS:
            raise validation.no_such_action(action)
        args = body[action]
        body_schema, rule = self._ACTIONS[action]
        validation.validate(body_schema, body, formats=schema.FORMATS)
        ctx = req.context.ctx
        snapshot = operations.get(self._db, ctx, snapshot_id=snapshot_id)
        self._enforcer.authorize(ctx, rule, {'project_id': snapshot.project_id,
                                             'user_id': snapshot.user_id})
        if action == 'os-reset_status':
            operations.reset_status(self._db, ctx, snapshot_id=snapshot_id,
                                    status=args['status'].lower(), notifier=self._notifier)
        elif action == 'os-update_snapshot_status':
            operations.update_status(self._db, ctx, snapshot_id=snapshot_id,
                                     status=args['status'], progress=args.get('progress') or None)
        elif action == 'os-unmanage':
            manageable.unmanage_snapshot(self._db, self._rpc, ctx, snapshot_id=snapshot_id)
        else:
            operations.delete(self._db, self._rpc, ctx, snapshot_id=snapshot_id, force=True)
        resp.status = falcon.HTTP_202
