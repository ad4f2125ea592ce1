"""cinderlike-api: /backups — list, detail, create, show, update, delete, restore, export and
import records, and the backup admin actions.

HTTP only: parse, policy, validate, call api/operations/backups.py, render with views.
"""

from collections.abc import Iterator

import falcon
from oslo_utils import strutils

from cinderlike import exception
from cinderlike.api import listing, pages, validation
from cinderlike.api import microversions as mv
from cinderlike.api.operations import backups as operations
from cinderlike.api.operations import volumes as volume_operations
from cinderlike.api.schemas import backups as schema
from cinderlike.api.turns import ListingTurns
from cinderlike.api.views import backups as view
from cinderlike.api.views.common import Links
from cinderlike.db import backups as db_backups
from cinderlike.policies import backups as policy

# Cinder's resource_filters.json for backups: what non-admins may filter on (3.31+), and
# before 3.31 the only keys kept for them (others are dropped silently).
ALLOWED_FILTERS = ('name', 'status', 'volume_id')
_RENAMES = {'name~': 'display_name~', 'description~': 'display_description~'}


def backup_filters(ctx, params: dict, version) -> tuple[str | None, dict]:
    """(project scope, filters) of a listing: Cinder's backup filter rules by version.

    :raises Invalid, InvalidParameterValue:
    """
    filters = dict(params)
    if version.matches(mv.RESOURCE_FILTER):
        listing.reject_invalid_filters(ctx, filters, ALLOWED_FILTERS,
                                       like=version.matches(mv.LIKE_FILTER))
        filters = {_RENAMES.get(k, k): v for k, v in filters.items()}
    elif not ctx.is_admin:
        filters = {k: v for k, v in filters.items()
                   if k in ALLOWED_FILTERS or k == 'all_tenants'}
    all_tenants = filters.pop('all_tenants', '0')
    if not strutils.is_valid_boolstr(all_tenants):
        raise exception.InvalidParameterValue(
            err=f"all_tenants must be a boolean, got '{all_tenants}'.")
    project = (None if ctx.is_admin and strutils.bool_from_string(all_tenants)
               else ctx.project_id)
    if 'name' in filters:
        filters['display_name'] = filters.pop('name')
    return project, filters


def _stripped(value):
    """Cinder's clean_name_and_description."""
    return value.strip() if isinstance(value, str) else value


def _create_schema(version) -> dict:
    if version.matches(mv.BACKUP_AZ):
        return schema.create_v3_51
    if version.matches(mv.BACKUP_METADATA):
        return schema.create_v3_43
    return schema.create


class BackupRenderer:
    """Builds backup views for a batch of rows with one metadata query."""

    def __init__(self, conf, db, enforcer):
        self._conf = conf
        self._db = db
        self._enforcer = enforcer
        self.collection = pages.Collection(
            conf=conf, db=db, enforcer=enforcer, name='backups', policy=policy.GET_ALL_POLICY,
            filters=backup_filters, name_sort=mv.BACKUP_SORT_NAME, store=db_backups,
            views=self._views, links=self.links)

    def links(self, req: falcon.Request) -> Links:
        return Links.of(self._conf, req)

    def summaries(self, req: falcon.Request, backups: list) -> Iterator[dict]:
        """Summary views, each made as it is taken."""
        links = self.links(req)
        return (view.summary(b, links) for b in backups)

    def details(self, req: falcon.Request, backups: list, session=None) -> Iterator[dict]:
        """Detail views, each made as it is taken (the metadata is read first)."""
        links = self.links(req)
        attributes = self._enforcer.allowed(req.context.ctx, policy.BACKUP_ATTRIBUTES_POLICY)
        metadata = db_backups.get_metadata(self._db, backup_ids=[b.id for b in backups],
                                           session=session)
        version = req.context.api_version
        return (view.detail(b, metadata[b.id], links, version=version, attributes=attributes)
                for b in backups)

    def summary(self, req: falcon.Request, backup) -> dict:
        return {'backup': next(self.summaries(req, [backup]))}

    def _views(self, req: falcon.Request, backups: list, detail: bool,
               session) -> Iterator[dict]:
        return self.details(req, backups, session) if detail else self.summaries(req, backups)


class _Resource:
    """The (conf, db, enforcer, rpc) every backups resource is built from."""

    def __init__(self, conf, db, enforcer, rpc):
        self._conf = conf
        self._db = db
        self._enforcer = enforcer
        self._rpc = rpc
        self._render = BackupRenderer(conf, db, enforcer)

    def _load(self, req: falcon.Request, backup_id: str, rule: str):
        ctx = req.context.ctx
        backup = operations.get(self._db, ctx, backup_id=backup_id)
        self._enforcer.authorize(ctx, policy.GET_POLICY, _target(backup))
        if rule != policy.GET_POLICY:
            self._enforcer.authorize(ctx, rule, _target(backup))
        return backup


def _target(row) -> dict:
    return {'project_id': row.project_id, 'user_id': row.user_id}


class Backups(_Resource):
    """GET /backups, GET /backups/detail, POST /backups, POST /backups/import_record."""

    def __init__(self, conf, db, enforcer, rpc, *, turns: ListingTurns):
        super().__init__(conf, db, enforcer, rpc)
        self._turns = turns

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        self._turns.send(resp, lambda: self._render.collection.page(req, detail=False))

    def on_get_detail(self, req: falcon.Request, resp: falcon.Response) -> None:
        self._turns.send(resp, lambda: self._render.collection.page(req, detail=True))

    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        """:raises ValidationError, VolumeNotFound, SnapshotNotFound, InvalidVolume,
        InvalidSnapshot, InvalidBackup, OverQuota:"""
        ctx, version = req.context.ctx, req.context.api_version
        body = validation.load_body(req)
        validation.validate(_create_schema(version), body)
        wanted = body['backup']
        volume = volume_operations.get(self._db, ctx, volume_id=wanted['volume_id'])
        self._enforcer.authorize(ctx, policy.CREATE_POLICY, _target(volume))
        backup = operations.create(
            self._conf, self._db, self._rpc, ctx, volume=volume,
            name=_stripped(wanted.get('name')),
            description=_stripped(wanted.get('description')),
            container=wanted.get('container'),
            incremental=strutils.bool_from_string(wanted.get('incremental', False),
                                                  strict=True),
            force=strutils.bool_from_string(wanted.get('force', False), strict=True),
            snapshot_id=wanted.get('snapshot_id'),
            metadata=wanted.get('metadata') if version.matches(mv.BACKUP_METADATA) else None,
            availability_zone=(wanted.get('availability_zone')
                               if version.matches(mv.BACKUP_AZ) else None))
        resp.status = falcon.HTTP_202
        resp.media = self._render.summary(req, backup)

    def on_post_import_record(self, req: falcon.Request, resp: falcon.Response) -> None:
        """:raises ValidationError, InvalidInput, InvalidBackup, OverQuota; 503 without a
        backup service:"""
        ctx = req.context.ctx
        self._enforcer.authorize(ctx, policy.IMPORT_POLICY, {'project_id': ctx.project_id})
        body = validation.load_body(req)
        validation.validate(schema.import_record, body, formats=schema.FORMATS)
        record = body['backup-record']
        try:
            backup = operations.import_record(
                self._conf, self._db, self._rpc, ctx, backup_service=record['backup_service'],
                backup_url=record['backup_url'])
        except exception.ServiceNotFound as error:
            # NOTE(cinder): no backup service at all is Cinder's 503 here, not a 404.
            raise falcon.HTTPServiceUnavailable(description=error.msg) from error
        resp.status = falcon.HTTP_201
        resp.media = self._render.summary(req, backup)


class Backup(_Resource):
    """GET, PUT, DELETE /backups/{backup_id}."""

    def on_get(self, req: falcon.Request, resp: falcon.Response, backup_id: str) -> None:
        """:raises BackupNotFound:"""
        backup = self._load(req, backup_id, policy.GET_POLICY)
        resp.media = {'backup': next(self._render.details(req, [backup]))}

    def on_put(self, req: falcon.Request, resp: falcon.Response, backup_id: str) -> None:
        """:raises ValidationError, BackupNotFound; 404 before 3.9:"""
        version = req.context.api_version
        if not version.matches(mv.BACKUP_UPDATE):
            raise falcon.HTTPNotFound()
        body = validation.load_body(req)
        validation.validate(schema.update_v3_43 if version.matches(mv.BACKUP_METADATA)
                            else schema.update, body)
        self._load(req, backup_id, policy.UPDATE_POLICY)
        changes = body['backup'] or {}
        values = {f'display_{k}': _stripped(changes[k]) for k in ('name', 'description')
                  if k in changes}
        backup = operations.update(self._db, req.context.ctx, backup_id=backup_id,
                                   values=values, metadata=changes.get('metadata'))
        resp.media = self._render.summary(req, backup)

    def on_delete(self, req: falcon.Request, resp: falcon.Response, backup_id: str) -> None:
        """:raises BackupNotFound, InvalidBackup, ServiceNotFound:"""
        self._load(req, backup_id, policy.DELETE_POLICY)
        operations.delete(self._conf, self._db, self._rpc, req.context.ctx,
                          backup_id=backup_id)
        resp.status = falcon.HTTP_202


class BackupRestore(_Resource):
    """POST /backups/{backup_id}/restore and GET /backups/{backup_id}/export_record."""

    def on_post(self, req: falcon.Request, resp: falcon.Response, backup_id: str) -> None:
        """:raises ValidationError, BackupNotFound, InvalidBackup, VolumeNotFound,
        InvalidVolume, OverQuota:"""
        body = validation.load_body(req)
        validation.validate(schema.restore, body)
        self._load(req, backup_id, policy.RESTORE_POLICY)
        wanted = body['restore'] or {}
        if wanted.get('volume_id') is None:
            backup, volume = operations.restore_to_new(
                self._conf, self._db, self._rpc, self._enforcer, req.context.ctx,
                backup_id=backup_id, name=wanted.get('name'))
        else:
            backup, volume = operations.restore(self._conf, self._db, self._rpc,
                                                req.context.ctx, backup_id=backup_id,
                                                volume_id=wanted['volume_id'])
        resp.status = falcon.HTTP_202
        resp.media = view.restore(backup_id=backup.id, volume_id=volume.id,
                                  volume_name=volume.display_name)

    def on_get_export_record(self, req: falcon.Request, resp: falcon.Response,
                             backup_id: str) -> None:
        """:raises BackupNotFound, InvalidBackup:"""
        self._load(req, backup_id, policy.EXPORT_POLICY)
        record = operations.export_record(self._conf, self._db, self._rpc, req.context.ctx,
                                          backup_id=backup_id)
        resp.media = view.export(record)


class BackupActions(_Resource):
    """POST /backups/{backup_id}/action: os-reset_status, os-force_delete."""

    # action → (body schema, policy)
    _ACTIONS = {
        'os-reset_status': (schema.reset_status, policy.RESET_STATUS_POLICY),
        'os-force_delete': (schema.force_delete, policy.FORCE_DELETE_POLICY),
    }

    def on_post(self, req: falcon.Request, resp: falcon.Response, backup_id: str) -> None:
        """:raises Invalid, ValidationError, BackupNotFound, NotSupportedOperation:"""
        body = validation.load_body(req)
        action = validation.action_name(req)
        if action not in self._ACTIONS:
            raise validation.no_such_action(action)
        args = body[action]
        body_schema, rule = self._ACTIONS[action]
        validation.validate(body_schema, body, formats=schema.FORMATS)
        ctx = req.context.ctx
        self._load(req, backup_id, rule)
        if action == 'os-reset_status':
            operations.reset_status(self._conf, self._db, self._rpc, ctx, backup_id=backup_id,
                                    status=args['status'].lower())
        else:
            operations.delete(self._conf, self._db, self._rpc, ctx, backup_id=backup_id,
                              force=True)
        resp.status = falcon.HTTP_202
