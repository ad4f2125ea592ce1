"""cinderlike-api: /volumes — list, detail, summary, create, show, update, delete.

HTTP only: parse, policy, validate, call api/operations/volumes.py, render with views.
"""

import ast
from collections.abc import Iterator

import falcon
from oslo_utils import strutils, timeutils

from cinderlike import exception, notifications
from cinderlike.api import listing, validation
from cinderlike.api import microversions as mv
from cinderlike.api.flows.create_volume import CreateRequest
from cinderlike.api.operations import volumes as operations
from cinderlike.api.resources import metadata
from cinderlike.api.schemas import volumes as schema
from cinderlike.api.turns import ListingTurns
from cinderlike.api.views import common as common_view
from cinderlike.api.views import volumes as view
from cinderlike.db import volumes as db_volumes
from cinderlike.policies import volumes as policy

# Cinder's resource_filters.json for volumes: what non-admins may filter on (3.31+).
ALLOWED_FILTERS = ('name', 'status', 'metadata', 'bootable', 'migration_status',
                   'availability_zone', 'group_id', 'size', 'created_at', 'updated_at',
                   'consumes_quota')
# Before 3.31 other keys of non-admins are dropped silently.
LEGACY_FILTERS = ('name', 'status', 'metadata', 'availability_zone', 'bootable', 'group_id')
_RENAMES = {'name': 'display_name', 'description': 'display_description',
            'consumes_quota': 'use_quota'}


def _time_filter(key: str, value: str, version):
    """`gt:<iso8601>,lt:...` (3.60) → [(op, datetime)]; else the value as given."""
    if not version.matches(mv.VOLUME_TIME_COMPARISON_FILTER):
        return value
    comparisons = []
    for part in value.split(','):
        op, _sep, when = part.partition(':')
        if op not in ('gt', 'gte', 'eq', 'neq', 'lt', 'lte') or not when:
            raise exception.InvalidInput(reason=f'Invalid {key} filter: {value}')
        try:
            moment = timeutils.normalize_time(timeutils.parse_isotime(when))
        except ValueError:
            raise exception.InvalidInput(reason=f'Invalid {key} filter: {value}') from None
        comparisons.append((op, moment))
    return comparisons


def _convert(filters: dict, version) -> dict:
    """Filter values as db/volumes.py takes them (Cinder's check_volume_filters)."""
    converted = {}
    for key, value in filters.items():
        base = key.rstrip('~')
        name = _RENAMES.get(base, base) + key[len(base):]
        if base == 'metadata' and isinstance(value, str):
            try:
                value = ast.literal_eval(value)
            except (ValueError, SyntaxError):
                pass  # a non-dict metadata filter matches nothing, as in Cinder
        elif base in ('bootable', 'use_quota', 'consumes_quota'):
            strict = version.matches(mv.VOLUME_LIST_BOOTABLE)
            try:
                value = strutils.bool_from_string(value, strict=strict)
            except ValueError:
                raise exception.InvalidInput(
                    reason=f"Invalid value for '{key}': {value}") from None
        elif base in ('created_at', 'updated_at') and not key.endswith('~'):
            value = _time_filter(key, value, version)
        converted[name] = value
    return converted


def volume_filters(ctx, params: dict, version) -> tuple[str | None, dict]:
    """(project scope, filters) for a listing: Cinder's filter checks by microversion."""
    filters = dict(params)
    if not version.matches(mv.VOLUME_LIST_GLANCE_METADATA):
        filters.pop('glance_metadata', None)
    if not version.matches(mv.VOLUME_LIST_GROUP):
        filters.pop('group_id', None)
    if version.matches(mv.RESOURCE_FILTER):
        listing.reject_invalid_filters(ctx, filters, ALLOWED_FILTERS,
                                       like=version.matches(mv.LIKE_FILTER))
    elif not ctx.is_admin:
        filters = {k: v for k, v in filters.items() if k in LEGACY_FILTERS + ('all_tenants',)}
    all_tenants = listing.bool_param(filters, 'all_tenants')
    filters.pop('all_tenants', None)
    project = None if (ctx.is_admin and all_tenants) else ctx.project_id
    filters = _convert(filters, version)
    if not ctx.is_admin:
        filters['no_migration_targets'] = True
    return project, filters


# NOTE(metadata): /volumes/{volume_id}/metadata is served by api/resources/metadata.py.
METADATA = metadata.Owner(
    id_field='volume_id',
    get=lambda db, ctx, volume_id: operations.get(db, ctx, volume_id=volume_id),
    read=lambda db, volume_id: db_volumes.get_metadata(db, volume_ids=[volume_id])[volume_id],
    write=lambda db, volume_id, items, replace: db_volumes.update_metadata(
        db, volume_id=volume_id, metadata=items, replace=replace),
    remove=lambda db, volume_id, key: db_volumes.delete_metadata(db, volume_id=volume_id,
                                                                 key=key),
    missing=lambda volume_id, key: exception.VolumeMetadataNotFound(volume_id=volume_id,
                                                                    metadata_key=key),
    schemas=schema, get_rule=policy.GET_METADATA_POLICY,
    create_rule=policy.CREATE_METADATA_POLICY, update_rule=policy.UPDATE_METADATA_POLICY,
    delete_rule=policy.DELETE_METADATA_POLICY)

class VolumeRenderer:
    """Builds detail views for a batch of rows with one query per kind of extra data."""

    def __init__(self, conf, db, enforcer):
        self._conf = conf
        self._db = db
        self._enforcer = enforcer

    def links(self, req: falcon.Request) -> common_view.Links:
        return common_view.Links.of(self._conf, req)

    def _visibility(self, ctx, call: view.Call) -> view.Visibility:
        extended = call.extensions
        return view.Visibility(
            admin=ctx.is_admin, attached_host=ctx.is_admin or 'service' in ctx.roles,
            tenant=extended and self._enforcer.allowed(ctx, policy.TENANT_ATTRIBUTE_POLICY),
            host=extended and self._enforcer.allowed(ctx, policy.HOST_ATTRIBUTE_POLICY),
            migration=extended and self._enforcer.allowed(ctx, policy.MIG_ATTRIBUTE_POLICY))

    def details(self, req: falcon.Request, volumes: list, call: view.Call) -> Iterator[dict]:
        """Detail views of *volumes* with what Cinder adds for *call*."""
        return self.views(req, volumes, call, self._read_extras(volumes, call))

    def _read_extras(self, volumes: list, call: view.Call) -> dict[str, view.Extras]:
        # NOTE(session): one connection checkout (and pre-ping) for the lookups.
        with self._db.reader() as s:
            return self._extras(volumes, self._metadata([v.id for v in volumes], call, s), s)

    def listed_extras(self, rows: list, s) -> dict[str, view.Extras]:
        """The extras of a detail listing's *rows*, read with db_volumes.detail_columns():
        the metadata and the type's name came with them; attachments are looked up only for
        attached ones."""
        metadata = {v.id: view.visible_metadata(v.metadata or {}, v.admin_metadata or {})
                    for v in rows}
        return self._extras(rows, metadata, s, attached=[v for v in rows if v.attached],
                            names={v.volume_type_id: v.type_name for v in rows})

    def views(self, req: falcon.Request, volumes: list, call: view.Call,
              extras: dict[str, view.Extras]) -> Iterator[dict]:
        """Detail views of *volumes*, each made as it is taken (a listing's body encodes
        them a batch at a time)."""
        see = self._visibility(req.context.ctx, call)
        links = self.links(req)
        version = req.context.api_version
        return (view.detail(v, extras[v.id], version=version, links=links, see=see, call=call)
                for v in volumes)

    def _extras(self, volumes: list, metadata: dict[str, dict], s, *,
                attached: list | None = None,
                names: dict[str, str] | None = None) -> dict[str, view.Extras]:
        """Extras of *volumes*, their *metadata* by id as the views show it; attachments
        are looked up for *attached* only (those that may have some; all when not given),
        type names unless *names* gives them."""
        attachments = db_volumes.get_attachments(
            self._db, volume_ids=[v.id for v in (volumes if attached is None else attached)],
            session=s)
        if names is None:
            names = db_volumes.get_type_names(
                self._db, type_ids={v.volume_type_id for v in volumes}, session=s)
        return {v.id: view.Extras(metadata[v.id], attachments.get(v.id, []),
                                  names.get(v.volume_type_id)) for v in volumes}

    def _metadata(self, ids: list[str], call: view.Call, s) -> dict[str, dict]:
        metadata = db_volumes.get_metadata(self._db, volume_ids=ids, session=s)
        if not call.admin_metadata:
            return metadata
        # NOTE(admin_metadata): read for every caller, as Cinder's viewable_admin_meta
        # elevates the context for this lookup.
        admin_metadata = db_volumes.get_metadata(self._db, volume_ids=ids, admin=True,
                                                 session=s)
        return {vid: view.visible_metadata(metadata[vid], admin_metadata[vid]) for vid in ids}

    def one(self, req: falcon.Request, volume, call: view.Call) -> dict:
        return {'volume': next(self.details(req, [volume], call))}

    def legacy(self, req: falcon.Request, volume) -> dict:
        """Cinder's legacy_detail (what POST /manageable_volumes answers): the 3.0 fields
        whatever the request's microversion, visible admin metadata, no extensions."""
        extras = self._read_extras([volume], view.UPDATE)[volume.id]
        shown = view.detail(volume, extras, version=mv.APIVersion.parse(mv.BASE),
                            links=self.links(req), see=self._visibility(req.context.ctx,
                                                                          view.UPDATE),
                            call=view.UPDATE)
        return {'volume': shown}

    def created(self, req: falcon.Request, volume, metadata: dict, type_name: str) -> dict:
        """POST /volumes' view of the row just inserted, from what was inserted.

        NOTE(round_trips): a new volume has the metadata it was given and no attachments,
        so nothing is read back (three SELECTs per create).
        """
        extras = view.Extras(dict(metadata), [], type_name)
        return {'volume': next(self.views(req, [volume], view.CREATE, {volume.id: extras}))}


class Volumes:
    """GET /volumes, GET /volumes/detail, GET /volumes/summary (3.12), POST /volumes."""

    def __init__(self, conf, db, enforcer, rpc, *, turns: ListingTurns):
        self._conf = conf
        self._db = db
        self._enforcer = enforcer
        self._rpc = rpc
        self._turns = turns
        self._render = VolumeRenderer(conf, db, enforcer)

    def _list(self, req: falcon.Request, *, detail: bool) -> dict:
        """A page of volumes; its views are made as the body encodes them."""
        ctx, version = req.context.ctx, req.context.api_version
        self._enforcer.authorize(ctx, policy.GET_ALL_POLICY)
        params = dict(req.params)
        marker, limit, offset = listing.pagination(params, max_limit=self._conf.osapi_max_limit)
        sort = listing.sort(params)
        with_count = (version.matches(mv.SUPPORT_COUNT_INFO)
                      and listing.bool_param(params, 'with_count'))
        params.pop('with_count', None)
        project, filters = volume_filters(ctx, params, version)
        with self._db.reader() as s:
            rows = db_volumes.get_all(
                self._db, project_id=project, filters=filters, marker=marker, limit=limit,
                offset=offset, sort=sort,
                columns=view.DETAIL_COLUMNS if detail else view.SUMMARY_COLUMNS,
                computed=db_volumes.detail_columns(self._db.dialect,
                                                   view.VISIBLE_ADMIN_METADATA) if detail else (),
                session=s)
            # NOTE(session): a detail page's lookups, and the count, in the page's read
            # transaction.
            extras = self._render.listed_extras(rows, s) if detail else None
            count = (db_volumes.count(self._db, project_id=project, filters=filters, session=s)
                     if with_count else None)
        links = self._render.links(req)
        items = (self._render.views(req, rows, view.DETAIL, extras) if detail
                 else (view.summary(v, links=links) for v in rows))
        next_href = links.page_after('volumes/detail' if detail else 'volumes',
                                     dict(req.params), rows, limit=limit, count=count)
        return view.collection(items, version=version, count=count, next_href=next_href)

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        self._turns.send(resp, lambda: self._list(req, detail=False))

    def on_get_detail(self, req: falcon.Request, resp: falcon.Response) -> None:
        self._turns.send(resp, lambda: self._list(req, detail=True))

    def on_get_summary(self, req: falcon.Request, resp: falcon.Response) -> None:
        ctx, version = req.context.ctx, req.context.api_version
        if not version.matches(mv.VOLUME_SUMMARY):
            raise falcon.HTTPNotFound()
        self._enforcer.authorize(ctx, policy.GET_ALL_POLICY)
        all_tenants = listing.bool_param(req.params, 'all_tenants')
        project = None if (ctx.is_admin and all_tenants) else ctx.project_id
        total, size, metadata = db_volumes.summary(self._db, project_id=project)
        resp.media = view.volume_summary(total, size, metadata, version=version)

    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        """:raises ValidationError, InvalidInput, VolumeTypeNotFound, OverQuota:"""
        ctx, version = req.context.ctx, req.context.api_version
        body = validation.load_body(req)
        validation.validate(schema.create_v3_53 if version.matches(
            mv.SUPPORT_VOLUME_SCHEMA_CHANGES) else schema.create, body)
        wanted = body['volume']
        self._enforcer.authorize(ctx, policy.CREATE_FROM_IMAGE_POLICY if wanted.get(
            'imageRef', wanted.get('image_id')) else policy.CREATE_POLICY)
        if wanted.get('multiattach') is not None and schema.is_true(wanted['multiattach']):
            raise exception.InvalidVolume(
                reason='multiattach parameter has been removed. The default behavior is to '
                       'use multiattach enabled volume types. Contact your administrator to '
                       'create a multiattach enabled volume type and use it to create '
                       'multiattach volumes.')
        request = CreateRequest(
            size=wanted.get('size'),
            name=wanted.get('name', wanted.get('display_name')),
            description=wanted.get('description', wanted.get('display_description')),
            volume_type=wanted.get('volume_type'),
            availability_zone=wanted.get('availability_zone'),
            metadata=wanted.get('metadata'), source_volid=wanted.get('source_volid'),
            snapshot_id=wanted.get('snapshot_id'),
            backup_id=(wanted.get('backup_id')
                       if version.matches(mv.VOLUME_CREATE_FROM_BACKUP) else None),
            image_ref=wanted.get('imageRef', wanted.get('image_id')),
            scheduler_hints=body.get('OS-SCH-HNT:scheduler_hints'),
            # NOTE(groups): Cinder takes consistencygroup_id as a group id too (group_id wins).
            group_id=wanted.get('group_id', wanted.get('consistencygroup_id')))
        volume, vtype = operations.create(self._conf, self._db, self._rpc, self._enforcer, ctx,
                                          request=request)
        resp.status = falcon.HTTP_202
        resp.media = self._render.created(req, volume, request.metadata or {}, vtype.name)


class Volume:
    """GET, PUT, DELETE /volumes/{volume_id}."""

    def __init__(self, conf, db, enforcer, rpc):
        self._db = db
        self._enforcer = enforcer
        self._rpc = rpc
        self._render = VolumeRenderer(conf, db, enforcer)
        self._notifier = notifications.VolumeNotifier(conf, db, host=conf.host)

    def _authorize(self, ctx, rule: str, volume) -> None:
        self._enforcer.authorize(ctx, rule, {'project_id': volume.project_id,
                                             'user_id': volume.user_id})

    def _load(self, req: falcon.Request, volume_id: str, rule: str):
        ctx = req.context.ctx
        volume = operations.get(self._db, ctx, volume_id=volume_id)
        self._authorize(ctx, rule, volume)
        return volume

    def on_get(self, req: falcon.Request, resp: falcon.Response, volume_id: str) -> None:
        resp.media = self._render.one(req, self._load(req, volume_id, policy.GET_POLICY),
                                      view.SHOW)

    def on_put(self, req: falcon.Request, resp: falcon.Response, volume_id: str) -> None:
        """:raises ValidationError, VolumeNotFound, InvalidVolume:"""
        body = validation.load_body(req)
        validation.validate(schema.update_v3_53 if req.context.api_version.matches(
            mv.SUPPORT_VOLUME_SCHEMA_CHANGES) else schema.update, body)
        self._load(req, volume_id, policy.UPDATE_POLICY)
        changes = body['volume']
        values = {}
        for field in ('name', 'description'):
            for key in (f'display_{field}', field):
                if key in changes:
                    values[f'display_{field}'] = changes[key]
        operations.update(self._db, req.context.ctx, volume_id=volume_id, values=values,
                          metadata=changes.get('metadata'), notifier=self._notifier)
        resp.media = self._render.one(
            req, operations.get(self._db, req.context.ctx, volume_id=volume_id), view.UPDATE)

    def on_delete(self, req: falcon.Request, resp: falcon.Response, volume_id: str) -> None:
        """:raises VolumeNotFound, InvalidVolume:"""
        # NOTE(order): as Cinder, the flags are read before the volume is looked up.
        cascade = listing.bool_param(req.params, 'cascade')
        force = (req.context.api_version.matches(mv.VOLUME_DELETE_FORCE)
                 and listing.bool_param(req.params, 'force'))
        ctx = req.context.ctx

        def authorize(volume):
            self._authorize(ctx, policy.DELETE_POLICY, volume)
            if force:
                self._enforcer.authorize(ctx, policy.FORCE_DELETE_POLICY)
        operations.delete(self._db, self._rpc, ctx, volume_id=volume_id, authorize=authorize,
                          force=force, cascade=cascade)
        resp.status = falcon.HTTP_202
