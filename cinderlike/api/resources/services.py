"""cinderlike-api: os-services — list services, enable / disable them for scheduling.

A disabled cinder-volume service is skipped by the scheduler, so the row must change.
freeze/thaw/failover_host and set-log/get-log need volume-service RPCs and are not served.
"""

import falcon

from cinderlike import exception
from cinderlike.api import validation
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


class Services:
    """GET /os-services[?host=&binary=] (admin)."""

    def __init__(self, conf, db, enforcer):
        self._conf = conf
        self._db = db
        self._enforcer = enforcer

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        self._enforcer.authorize(req.context.ctx, policy.GET_ALL_POLICY)
        rows = db_services.get_all(self._db, binary=req.get_param('binary'))
        host = req.get_param('host')
        if host:
            rows = [row for row in rows if _host_matches(row.host or '', host)]
        resp.media = view.index(rows, version=req.context.api_version,
                                down_time=self._conf.service_down_time)


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
