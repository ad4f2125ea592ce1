"""cinderlike-api: /os-volume-transfer (3.0) and /volume-transfers — create, list, detail,
show, delete, accept.

HTTP only: parse, policy, validate, call api/operations/transfers.py, render with views.
The two paths differ as Cinder's controllers do: only /volume-transfers takes no_snapshots
(3.55), encrypted volumes (3.70) and pagination and sorting (3.59).
"""

import falcon
from oslo_utils import strutils

from cinderlike import exception, notifications
from cinderlike.api import listing, validation
from cinderlike.api import microversions as mv
from cinderlike.api.operations import transfers as operations
from cinderlike.api.operations import volumes as volume_operations
from cinderlike.api.schemas import transfers as schema
from cinderlike.api.views import common as common_view
from cinderlike.api.views import transfers as view
from cinderlike.policies import transfers as policy

# Cinder's fixed order of transfer lists without pagination (before 3.59, and legacy).
_FIXED_SORT = [('created_at', 'asc'), ('id', 'asc')]


class _Base:
    """What every transfer resource holds; *legacy* for the /os-volume-transfer paths."""

    def __init__(self, conf, db, enforcer, *, legacy: bool):
        self._conf = conf
        self._db = db
        self._enforcer = enforcer
        self._legacy = legacy
        self._notifier = notifications.VolumeNotifier(conf, db, host=conf.host)

    def _links(self, req: falcon.Request) -> common_view.Links:
        return common_view.Links.of(self._conf, req)

    def _matches(self, req: falcon.Request, version: str) -> bool:
        """A /volume-transfers request at *version* or later (legacy paths never match)."""
        return not self._legacy and req.context.api_version.matches(version)


def _limited(rows: list, params: dict, max_limit: int) -> list:
    """Cinder's common.limited: the request's offset and limit applied to *rows*.

    NOTE(cinder): from 3.59 the database already applied them, and Cinder applies them
    again; a limit of 0 means the maximum here.
    """
    _marker, limit, offset = listing.pagination(dict(params), max_limit=max_limit)
    start = offset or 0
    return rows[start:start + (limit or max_limit)]


class Transfers(_Base):
    """GET (summary), GET …/detail, POST."""

    def _list(self, req: falcon.Request, *, detail: bool) -> dict:
        """:raises Invalid, InvalidInput, TransferNotFound: bad paging/sort, the marker."""
        ctx = req.context.ctx
        self._enforcer.authorize(ctx, policy.GET_ALL_POLICY)
        params = dict(req.params)
        max_limit = self._conf.osapi_max_limit
        marker = limit = offset = None
        sort = _FIXED_SORT
        if self._matches(req, mv.SUPPORT_TRANSFER_PAGINATION):
            marker, limit, offset = listing.pagination(params, max_limit=max_limit)
            sort = listing.sort(params)
        # NOTE(filters): before 3.59 (and always on /os-volume-transfer) the paging
        # parameters stay among the filters, and as Cinder they then match no transfer.
        if 'name' in params:
            params['display_name'] = params.pop('name')
        rows = operations.get_all(self._db, ctx, filters=params, marker=marker, limit=limit,
                                  offset=offset, sort=sort)
        shown = _limited(rows, req.params, max_limit)
        links = self._links(req)
        version = req.context.api_version
        items = [view.detail(t, version=version, links=links) if detail
                 else view.summary(t, links=links) for t in shown]
        page = listing.pagination(dict(req.params), max_limit=max_limit)[1]
        next_href = links.page_after(view.COLLECTION, dict(req.params), shown, limit=page,
                                     count=len(rows))
        next_links = [{'rel': 'next', 'href': next_href}] if next_href else None
        return view.collection(items, next_links=next_links)

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        resp.media = self._list(req, detail=False)

    def on_get_detail(self, req: falcon.Request, resp: falcon.Response) -> None:
        resp.media = self._list(req, detail=True)

    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        """:raises ValidationError, VolumeNotFound, InvalidVolume, InvalidSnapshot:"""
        body = validation.load_body(req)
        with_snapshots = self._matches(req, mv.TRANSFER_WITH_SNAPSHOTS)
        validation.validate(schema.create_v3_55 if with_snapshots else schema.create, body,
                            formats=schema.FORMATS)
        ctx = req.context.ctx
        wanted = body['transfer']
        volume = volume_operations.get(self._db, ctx, volume_id=wanted['volume_id'])
        self._enforcer.authorize(ctx, policy.CREATE_POLICY,
                                 {'project_id': volume.project_id, 'user_id': volume.user_id})
        name = wanted.get('name')
        transfer, auth_key = operations.create(
            self._conf, self._db, ctx, volume=volume,
            name=name.strip() if name is not None else None,
            no_snapshots=strutils.bool_from_string(wanted.get('no_snapshots', False)),
            allow_encrypted=self._matches(req, mv.TRANSFER_ENCRYPTED_VOLUME),
            notifier=self._notifier)
        resp.status = falcon.HTTP_202
        resp.media = view.created(transfer, auth_key, version=req.context.api_version,
                                  links=self._links(req))


class Transfer(_Base):
    """GET, DELETE /…/{transfer_id}."""

    def on_get(self, req: falcon.Request, resp: falcon.Response, transfer_id: str) -> None:
        """:raises TransferNotFound:"""
        ctx = req.context.ctx
        self._enforcer.authorize(ctx, policy.GET_POLICY)
        transfer = operations.get(self._db, ctx, transfer_id=transfer_id)
        resp.media = {'transfer': view.detail(transfer, version=req.context.api_version,
                                              links=self._links(req))}

    def on_delete(self, req: falcon.Request, resp: falcon.Response, transfer_id: str) -> None:
        """:raises TransferNotFound, VolumeNotFound: (202 on success)"""
        ctx = req.context.ctx
        transfer = operations.get(self._db, ctx, transfer_id=transfer_id)
        volume = volume_operations.get(self._db, ctx, volume_id=transfer.volume_id)
        self._enforcer.authorize(ctx, policy.DELETE_POLICY,
                                 {'project_id': volume.project_id, 'user_id': volume.user_id})
        operations.delete(self._conf, self._db, ctx, transfer=transfer, volume=volume,
                          notifier=self._notifier)
        resp.status = falcon.HTTP_202


class TransferAccept(_Base):
    """POST /…/{transfer_id}/accept."""

    def on_post(self, req: falcon.Request, resp: falcon.Response, transfer_id: str) -> None:
        """:raises ValidationError, TransferNotFound, InvalidAuthKey, InvalidVolume,
        InvalidSnapshot, OverQuota (413):"""
        body = validation.load_body(req)
        validation.validate(schema.accept, body)
        ctx = req.context.ctx
        self._enforcer.authorize(ctx, policy.ACCEPT_POLICY)
        try:
            transfer = operations.accept(self._conf, self._db, ctx, transfer_id=transfer_id,
                                         auth_key=body['accept']['auth_key'],
                                         notifier=self._notifier)
        except exception.VolumeSizeExceedsAvailableQuota as err:
            # NOTE(cinder): the accept controller answers this one as a webob 413 with the
            # bare message; the other quota errors keep their class name in front.
            raise falcon.HTTPPayloadTooLarge(description=err.msg,
                                             headers={'Retry-After': '0'}) from None
        resp.status = falcon.HTTP_202
        resp.media = {'transfer': view.summary(transfer, links=self._links(req))}
