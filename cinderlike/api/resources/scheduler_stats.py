"""cinderlike-api: scheduler-stats — the pools the schedulers know, asked by an RPC call.

Admins only. Filters: any capability (3.28), then only `name` and `volume_type` (3.31, the
configured resource filters, which bind admins too for pools); `volume_type` counts from 3.35.
"""

import falcon

from cinderlike.api import listing
from cinderlike.api import microversions as mv
from cinderlike.api.views import scheduler_stats as view
from cinderlike.db import volume_types as db_types
from cinderlike.policies import scheduler_stats as policy

# Cinder's resource_filters.json, "pool".
ALLOWED_FILTERS = ('name', 'volume_type')


def _filters(ctx, params: dict, version) -> dict:
    """The query's filters as this microversion takes them (Cinder's get_pools).

    :raises Invalid: for a key outside ALLOWED_FILTERS from 3.31.
    """
    if version.matches(mv.RESOURCE_FILTER):
        # NOTE(like): Cinder configures no `name~` for pools, so a like filter is refused.
        listing.reject_invalid_filters(ctx, params, ALLOWED_FILTERS, like=False,
                                       admin_exempt=False)
    elif not version.matches(mv.POOL_FILTER):
        params.clear()
    if not version.matches(mv.POOL_TYPE_FILTER):
        params.pop('volume_type', None)
    return params


class Pools:
    """GET /scheduler-stats/get_pools[?detail=&name=&volume_type=&<capability>=]."""

    def __init__(self, db, enforcer, rpc):
        self._db = db
        self._enforcer = enforcer
        self._rpc = rpc

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        """:raises InvalidParameterValue, Invalid, VolumeTypeNotFound:"""
        ctx = req.context.ctx
        self._enforcer.authorize(ctx, policy.GET_POOL_POLICY)
        # NOTE(repeats): a repeated parameter counts once, with its last value.
        params = {key: value[-1] if isinstance(value, list) else value
                  for key, value in req.params.items()}
        detail = listing.bool_param(params, 'detail')
        params.pop('detail', None)
        filters = _filters(ctx, params, req.context.api_version)
        if filters.get('volume_type'):
            # NOTE(type_lookup): an unknown type is the caller's 404 here, before the call,
            # as Cinder's scheduler raises it back through RPC.
            db_types.get_by_name_or_id(self._db, ctx_project_id=ctx.project_id,
                                       is_admin=ctx.is_admin, name_or_id=filters['volume_type'])
        pools = self._rpc.scheduler.get_pools(ctx, filters=filters)
        resp.media = view.pools(pools, detail=detail)
