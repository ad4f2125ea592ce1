"""cinderlike-api: clusters (3.7, admin) — list, detail, show, enable and disable.

A disabled cluster takes no new volumes: the scheduler reads `disabled` of a clustered
service from its cluster row. Older microversions get Cinder's plain 404.
"""

import falcon

from cinderlike import exception
from cinderlike.api import listing, validation
from cinderlike.api import microversions as mv
from cinderlike.api.schemas import clusters as schema
from cinderlike.api.views import clusters as view
from cinderlike.db import clusters as db_clusters
from cinderlike.db import services as db_services
from cinderlike.policies import clusters as policy

# Cinder's allowed_list_keys; the replication ones from 3.26.
FILTERS = ('name', 'binary', 'is_up', 'disabled', 'num_hosts', 'num_down_hosts')
REPLICATION_FILTERS = ('replication_status', 'frozen', 'active_backend_id')
_BOOL_FILTERS = ('is_up', 'disabled', 'frozen')
_INT_FILTERS = ('num_hosts', 'num_down_hosts')
_ACTIONS = {'enable': (schema.enable_cluster, False),
            'disable': (schema.disable_cluster, True)}


def _since_3_7(req: falcon.Request) -> None:
    if not req.context.api_version.matches(mv.CLUSTER_SUPPORT):
        raise falcon.HTTPNotFound()


def _filters(req: falcon.Request) -> dict:
    """The query as db/clusters filters.

    :raises InvalidInput: an unknown key or a count that is not an integer.
    :raises InvalidParameterValue: a flag that is not a boolean.
    """
    allowed = FILTERS
    if req.context.api_version.matches(mv.REPLICATION_CLUSTER):
        allowed += REPLICATION_FILTERS
    # NOTE(repeat): a repeated key counts once, with its last value (as webob's dict(GET)).
    filters = {key: value[-1] if isinstance(value, list) else value
               for key, value in req.params.items()}
    invalid = sorted(set(filters) - set(allowed))
    if invalid:
        raise exception.InvalidInput(reason=f"Invalid filter keys: {', '.join(invalid)}")
    for key in _BOOL_FILTERS:
        if key in filters:
            filters[key] = listing.bool_param(filters, key)
    for key in _INT_FILTERS:
        if key in filters:
            try:
                filters[key] = int(filters[key])
            except ValueError:
                raise exception.InvalidInput(
                    reason=f"Value '{filters[key]}' for '{key}' is not an integer.") from None
    return filters


class Clusters:
    """GET /clusters and GET /clusters/detail."""

    def __init__(self, conf, db, enforcer):
        self._conf = conf
        self._db = db
        self._enforcer = enforcer

    def _list(self, req: falcon.Request, resp: falcon.Response, with_detail: bool) -> None:
        _since_3_7(req)
        self._enforcer.authorize(req.context.ctx, policy.GET_ALL_POLICY)
        found = db_clusters.get_all(self._db, down_time=self._conf.service_down_time,
                                    filters=_filters(req))
        resp.media = view.index(found, version=req.context.api_version,
                                with_detail=with_detail)

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        """:raises InvalidInput, InvalidParameterValue:"""
        self._list(req, resp, with_detail=False)

    def on_get_detail(self, req: falcon.Request, resp: falcon.Response) -> None:
        """:raises InvalidInput, InvalidParameterValue:"""
        self._list(req, resp, with_detail=True)


class Cluster:
    """GET /clusters/{name}[?binary=] and PUT /clusters/{enable,disable}."""

    def __init__(self, conf, db, enforcer):
        self._conf = conf
        self._db = db
        self._enforcer = enforcer

    def _get(self, name: str, binary: str | None):
        return db_clusters.get(self._db, name=name, binary=binary or db_services.VOLUME_BINARY,
                               down_time=self._conf.service_down_time)

    def on_get(self, req: falcon.Request, resp: falcon.Response, cluster_name: str) -> None:
        """:raises ClusterNotFound:"""
        _since_3_7(req)
        self._enforcer.authorize(req.context.ctx, policy.GET_POLICY)
        found = self._get(cluster_name, req.get_param('binary'))
        resp.media = {'cluster': view.detail(found, version=req.context.api_version)}

    def on_put(self, req: falcon.Request, resp: falcon.Response, cluster_name: str) -> None:
        """*cluster_name* is the action here (Cinder's update(id)).

        :raises NotFound: "Unknown action"; ValidationError, InvalidInput, ClusterNotFound.
        """
        _since_3_7(req)
        self._enforcer.authorize(req.context.ctx, policy.UPDATE_POLICY)
        if cluster_name not in _ACTIONS:
            raise exception.NotFound('Unknown action')
        body_schema, disabled = _ACTIONS[cluster_name]
        body = validation.load_body(req)
        validation.validate(body_schema, body)
        reason = body.get('disabled_reason')
        reason = reason.strip() if reason else None
        found = self._get(body['name'], body.get('binary'))
        db_clusters.set_disabled(self._db, cluster_id=found.cluster.id, disabled=disabled,
                                 reason=reason)
        found = self._get(body['name'], body.get('binary'))
        resp.media = view.updated(found, version=req.context.api_version,
                                  disabled_reason=reason)
