"""cinderlike-api: /manageable_volumes and /manageable_snapshots (3.8), and their legacy
extension paths /os-volume-manage and /os-snapshot-manage (3.0) — manage an existing backend
object, list the manageable ones (summary and detail).

HTTP only: parse, policy, validate, call api/operations/manageable.py, render.
"""

import falcon
from oslo_utils import strutils

from cinderlike import exception
from cinderlike.api import listing, validation
from cinderlike.api import microversions as mv
from cinderlike.api.operations import manageable as operations
from cinderlike.api.operations import volumes as volume_operations
from cinderlike.api.resources.snapshots import SnapshotRenderer
from cinderlike.api.resources.volumes import VolumeRenderer
from cinderlike.api.schemas import manageable as schema
from cinderlike.policies import manageable as policy

_SUMMARY = ('reference', 'size', 'safe_to_manage')
_DETAIL = ('reference', 'size', 'safe_to_manage', 'reason_not_safe', 'cinder_id', 'extra_info')


def cluster_host(req: falcon.Request, params: dict, cluster_version: str):
    """(cluster, host): Cinder's get_cluster_host — exactly one from *cluster_version* on,
    else the host.

    :raises InvalidInput:
    """
    if req.context.api_version.matches(cluster_version):
        cluster, text = params.get('cluster'), 'One and only one of cluster and host must be set.'
    else:
        cluster, text = None, 'Host field is missing.'
    host = params.get('host')
    if bool(cluster) == bool(host):
        raise exception.InvalidInput(reason=text)
    return cluster, host


class _Manageable:
    """Shared by both resources: the version gate and the listing."""

    SNAPSHOTS = False
    KEY = 'manageable-volumes'
    FIELDS = {False: _SUMMARY, True: _DETAIL}

    def __init__(self, conf, db, enforcer, rpc, *, legacy: bool = False):
        self._conf = conf
        self._db = db
        self._enforcer = enforcer
        self._rpc = rpc
        # The os-*-manage extension paths answer from 3.0, the v3 ones from 3.8.
        self._min_version = mv.BASE if legacy else mv.MANAGE_EXISTING_LIST

    def _require(self, req: falcon.Request) -> None:
        if not req.context.api_version.matches(self._min_version):
            raise falcon.HTTPNotFound()

    def _list(self, req: falcon.Request, *, detail: bool) -> dict:
        """:raises InvalidInput, Invalid, InvalidParameterValue, ServiceUnavailable:"""
        self._require(req)
        ctx = req.context.ctx
        self._enforcer.authorize(ctx, policy.LIST_POLICIES[self.SNAPSHOTS])
        params = dict(req.params)
        cluster, host = cluster_host(req, params, mv.MANAGE_EXISTING_CLUSTER)
        marker, limit, offset = listing.pagination(params, max_limit=self._conf.osapi_max_limit)
        keys, dirs = operations.sort_order(listing.sort(params))
        try:
            entries = operations.manageable(
                self._conf, self._db, self._rpc, ctx, snapshots=self.SNAPSHOTS, host=host,
                cluster_name=cluster, marker=marker, limit=limit, offset=offset,
                sort_keys=keys, sort_dirs=dirs)
        except exception.ServiceNotFound:
            raise exception.ServiceUnavailable() from None
        fields = self.FIELDS[detail]
        return {self.KEY: [{k: entry.get(k) for k in fields} for entry in entries]}

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        resp.media = self._list(req, detail=False)

    def on_get_detail(self, req: falcon.Request, resp: falcon.Response) -> None:
        resp.media = self._list(req, detail=True)


class ManageableVolumes(_Manageable):
    """GET /manageable_volumes[/detail], POST /manageable_volumes."""

    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        """:raises ValidationError, InvalidInput, InvalidVolume, InvalidVolumeType,
        ServiceUnavailable:"""
        # NOTE(order): Cinder validates the body, then the microversion, then the policy.
        body = validation.load_body(req)
        validation.validate(schema.volume_manage_create_v3_16 if req.context.api_version.matches(
            mv.VOLUME_MIGRATE_CLUSTER) else schema.volume_manage_create, body)
        self._require(req)
        ctx = req.context.ctx
        self._enforcer.authorize(ctx, policy.MANAGE_POLICY)
        wanted = body['volume']
        cluster, host = cluster_host(req, wanted, mv.VOLUME_MIGRATE_CLUSTER)
        try:
            bootable = strutils.bool_from_string(wanted.get('bootable', False), strict=True)
        except ValueError as error:
            raise exception.InvalidInput(reason=str(error)) from None
        try:
            volume, _vtype = operations.manage_volume(
                self._conf, self._db, self._rpc, ctx, host=host, cluster_name=cluster,
                ref=wanted['ref'], name=(wanted.get('name') or '').strip() or None,
                description=(wanted.get('description') or '').strip() or None,
                volume_type=wanted.get('volume_type'), metadata=wanted.get('metadata'),
                availability_zone=wanted.get('availability_zone'), bootable=bootable)
        except exception.ServiceNotFound:
            raise exception.ServiceUnavailable(
                f"{'Host' if host else 'Cluster'} '{host or cluster}' not found") from None
        resp.status = falcon.HTTP_202
        resp.media = VolumeRenderer(self._conf, self._db, self._enforcer).legacy(req, volume)


class ManageableSnapshots(_Manageable):
    """GET /manageable_snapshots[/detail], POST /manageable_snapshots."""

    SNAPSHOTS = True
    KEY = 'manageable-snapshots'
    FIELDS = {False: (*_SUMMARY, 'source_reference'), True: (*_DETAIL, 'source_reference')}

    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        """:raises ValidationError, VolumeNotFound, InvalidVolume, ServiceUnavailable,
        OverQuota:"""
        body = validation.load_body(req)
        validation.validate(schema.snapshot_manage_create, body)
        self._require(req)
        ctx = req.context.ctx
        wanted = body['snapshot']
        volume = volume_operations.get(self._db, ctx, volume_id=wanted['volume_id'])
        self._enforcer.authorize(ctx, policy.SNAPSHOT_MANAGE_POLICY,
                                 {'project_id': volume.project_id, 'user_id': volume.user_id})
        try:
            snapshot = operations.manage_snapshot(
                self._conf, self._db, self._rpc, ctx, volume=volume, ref=wanted['ref'],
                name=wanted.get('name'), description=wanted.get('description'),
                metadata=wanted.get('metadata'))
        except exception.ServiceNotFound:
            raise exception.ServiceUnavailable() from None
        resp.status = falcon.HTTP_202
        resp.media = SnapshotRenderer(self._conf, self._db, self._enforcer).one(
            req, snapshot, extensions=False)
