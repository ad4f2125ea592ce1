"""cinderlike-api: os-services — list services, enable / disable them for scheduling,
freeze / thaw / failover_host a volume backend, and set / get the daemons' log levels.

A disabled cinder-volume service is skipped by the scheduler, so the row must change.
"""

import falcon

from cinderlike import exception, log_levels
from cinderlike.api import microversions as mv
from cinderlike.api import validation
from cinderlike.api.operations import services as operations
from cinderlike.api.schemas import services as schema
from cinderlike.api.views import services as view
from cinderlike.db import services as db_services
from cinderlike.policies import services as policy


def _host_matches(service_host: str, wanted: str) -> bool:
    """Cinder's host filter: `node` also finds `node@backend` and `node#pool` rows."""
    # NOTE(match_level): as db.api._filter_host: a pool name matches exactly, a backend
    # matches its pools, a bare host matches its backends and pools.
    if service_host == wanted:
        return True
    if '#' in wanted:
        return False
    suffixes = ('#',) if '@' in wanted else ('#', '@')
    return any(service_host.startswith(wanted + s) for s in suffixes)


def _backend_states(rpc, ctx) -> dict[str, str]:
    """{host@backend: backend_state} from the schedulers' pools (3.49), 'up' when a pool
    reports none, as Cinder."""
    return {pool['name'].partition('#')[0]:
            pool.get('capabilities', {}).get('backend_state', 'up')
            for pool in rpc.scheduler.get_pools(ctx)}


class Services:
    """GET /os-services[?host=&binary=] (admin)."""

    def __init__(self, conf, db, enforcer, rpc):
        self._conf = conf
        self._db = db
        self._enforcer = enforcer
        self._rpc = rpc

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        self._enforcer.authorize(req.context.ctx, policy.GET_ALL_POLICY)
        rows = db_services.get_all(self._db, binary=req.get_param('binary'))
        host = req.get_param('host')
        if host:
            rows = [row for row in rows if _host_matches(row.host or '', host)]
        version = req.context.api_version
        states = (_backend_states(self._rpc, req.context.ctx)
                  if version.matches(mv.BACKEND_STATE_REPORT) else None)
        resp.media = view.index(rows, version=version, down_time=self._conf.service_down_time,
                                backend_states=states)


# action -> (body schema, disabled afterwards, answer carries disabled_reason)
_ACTIONS = {
    'enable': (schema.enable_and_disable, False, False),
    'disable': (schema.enable_and_disable, True, False),
    'disable-log-reason': (schema.disable_log_reason, True, True),
}
# Cinder's other /os-services/<action> routes: not served here, but no 404 either.
_UNSERVED = ('get-log', 'set-log', 'freeze', 'thaw', 'failover_host', 'failover')


class ServiceAction:
    """PUT /os-services/{enable,disable,disable-log-reason} {host, binary[, disabled_reason]}."""

    def __init__(self, db, enforcer):
        self._db = db
        self._enforcer = enforcer

    def on_put(self, req: falcon.Request, resp: falcon.Response, action: str) -> None:
        """:raises InvalidInput, ValidationError, ServiceNotFound:"""
        if action not in _ACTIONS and action not in _UNSERVED:
            raise falcon.HTTPNotFound()  # no such route in Cinder's mapper
        self._enforcer.authorize(req.context.ctx, policy.UPDATE_POLICY)
        if action not in _ACTIONS:
            raise exception.InvalidInput(reason='Unknown action')
        body_schema, disabled, with_reason = _ACTIONS[action]
        body = validation.load_body(req)
        validation.validate(body_schema, body)
        host = body.get('host')
        if not host:
            raise exception.InvalidInput(reason='Host field is missing.')
        service, binary = body.get('service', ''), body.get('binary', '')
        reason = body.get('disabled_reason') if with_reason else None
        db_services.set_disabled(self._db, host=host, binary=binary or service,
                                 disabled=disabled, reason=reason)
        resp.media = view.update(host=host, service=service, binary=binary, disabled=disabled,
                                 disabled_reason=reason, with_reason=with_reason)


def _cluster_host(req: falcon.Request, body: dict) -> tuple[str | None, str | None]:
    """Cinder's get_cluster_host from 3.26. :raises InvalidInput:"""
    return validation.cluster_host(req.context.api_version, body, mv.REPLICATION_CLUSTER)


class _Action:
    """Shared preamble of the management actions: the update rule, then the body."""

    SCHEMA: dict
    MIN_VERSION = mv.BASE

    def __init__(self, conf, db, enforcer, rpc):
        self._conf = conf
        self._db = db
        self._enforcer = enforcer
        self._rpc = rpc

    def _body(self, req: falcon.Request) -> dict:
        """:raises ValidationError, Invalid:"""
        if not req.context.api_version.matches(self.MIN_VERSION):
            raise falcon.HTTPNotFound()
        self._enforcer.authorize(req.context.ctx, policy.UPDATE_POLICY)
        body = validation.load_body(req)
        # NOTE(level): Cinder's `level` format is its log-level check, InvalidInput text.
        validation.validate(self.SCHEMA, body,
                            formats={'level': lambda value: bool(log_levels.level_of(value))})
        return body


class Freeze(_Action):
    """PUT /os-services/freeze {host | cluster (3.26)}: 200 and no body, as Cinder."""

    SCHEMA = schema.freeze_and_thaw

    def on_put(self, req: falcon.Request, resp: falcon.Response) -> None:
        """:raises InvalidInput, InvalidParameterValue:"""
        cluster, host = _cluster_host(req, self._body(req))
        self._enforcer.authorize(req.context.ctx, policy.FREEZE_POLICY)
        operations.freeze(self._db, self._rpc, req.context.ctx, host=host, cluster_name=cluster)


class Thaw(_Action):
    """PUT /os-services/thaw {host | cluster (3.26)}: 200; Cinder's text when the driver
    refused."""

    SCHEMA = schema.freeze_and_thaw

    def on_put(self, req: falcon.Request, resp: falcon.Response) -> None:
        """:raises InvalidInput, InvalidParameterValue:"""
        cluster, host = _cluster_host(req, self._body(req))
        self._enforcer.authorize(req.context.ctx, policy.THAW_POLICY)
        refused = operations.thaw(self._db, self._rpc, req.context.ctx, host=host,
                                  cluster_name=cluster)
        if refused:
            resp.content_type = falcon.MEDIA_TEXT
            resp.text = refused


class FailoverHost(_Action):
    """PUT /os-services/failover_host {host | cluster (3.26), backend_id}: 202."""

    SCHEMA = schema.failover_host

    def on_put(self, req: falcon.Request, resp: falcon.Response) -> None:
        """:raises InvalidInput, InvalidParameterValue:"""
        body = self._body(req)
        cluster, host = _cluster_host(req, body)
        self._enforcer.authorize(req.context.ctx, policy.FAILOVER_POLICY)
        operations.failover(self._conf, self._db, self._rpc, req.context.ctx, host=host,
                            cluster_name=cluster, backend_id=body.get('backend_id'))
        resp.status = falcon.HTTP_202


class SetLog(_Action):
    """PUT /os-services/set-log {binary, server, prefix, level} (3.32): 202."""

    SCHEMA = schema.set_log
    MIN_VERSION = mv.LOG_LEVEL

    def on_put(self, req: falcon.Request, resp: falcon.Response) -> None:
        """:raises InvalidInput:"""
        body = self._body(req)
        operations.set_log(self._conf, self._db, self._rpc, req.context.ctx,
                           binary=body.get('binary'), server=body.get('server'),
                           prefix=body.get('prefix'), level=body.get('level'))
        resp.status = falcon.HTTP_202


class GetLog(_Action):
    """PUT /os-services/get-log {binary, server, prefix} (3.32): {"log_levels": [...]}."""

    SCHEMA = schema.get_log
    MIN_VERSION = mv.LOG_LEVEL

    def on_put(self, req: falcon.Request, resp: falcon.Response) -> None:
        body = self._body(req)
        resp.media = {'log_levels': operations.get_log(
            self._conf, self._db, self._rpc, req.context.ctx, binary=body.get('binary'),
            server=body.get('server'), prefix=body.get('prefix'))}


# The management actions, each at its own path: falcon matches these literal segments
# before /os-services/{action}.
MANAGEMENT_ACTIONS = {'freeze': Freeze, 'thaw': Thaw, 'failover_host': FailoverHost,
                      'set-log': SetLog, 'get-log': GetLog}
