"""cinderlike-api: os-quota-sets — a project's limits (with usage), its defaults, and admins'
changes to them."""

import falcon
from oslo_utils import strutils

from cinderlike import exception, quota
from cinderlike.api import validation
from cinderlike.api.operations import quota_sets as operations
from cinderlike.api.schemas import quota_sets as schema
from cinderlike.api.views import quota_sets as view
from cinderlike.db import quotas as db_quotas
from cinderlike.policies import quota_sets as policy


def _bool_param(req: falcon.Request, name: str) -> bool:
    """Cinder's get_bool_param. :raises InvalidParameterValue: for a non-boolean value."""
    value = req.get_param(name, default='false')
    if not strutils.is_valid_boolstr(value):
        raise exception.InvalidParameterValue(
            err=f"Value '{value}' for '{name}' is not a boolean.")
    return strutils.bool_from_string(value, strict=True)


def load_body(req: falcon.Request, db, body_schema: dict):
    body = validation.load_body(req)
    validation.validate(body_schema, body, formats=schema.formats(quota.resources(db)))
    return body


class QuotaSet:
    """GET/PUT/DELETE /os-quota-sets/{target_project_id}."""

    def __init__(self, conf, db, enforcer):
        self._conf = conf
        self._db = db
        self._enforcer = enforcer

    def _authorize(self, req: falcon.Request, rule: str, project_id: str) -> None:
        self._enforcer.authorize(req.context.ctx, rule, {'project_id': project_id})

    def on_get(self, req: falcon.Request, resp: falcon.Response, target_project_id: str) -> None:
        """:raises InvalidParameterValue: for ?usage= that is not a boolean."""
        self._authorize(req, policy.SHOW_POLICY, target_project_id)
        usage = _bool_param(req, 'usage')
        quotas = quota.project_quotas(self._conf, self._db, project_id=target_project_id,
                                      usages=usage)
        resp.media = view.quota_set(quotas, project_id=target_project_id, usage=usage)

    def on_put(self, req: falcon.Request, resp: falcon.Response, target_project_id: str) -> None:
        """:raises ValidationError, InvalidInput, Invalid: nothing is written then."""
        body = load_body(req, self._db, schema.update_quota)
        self._authorize(req, policy.UPDATE_POLICY, target_project_id)
        validation.check_length(target_project_id, 'quota_set_name')
        limits = {key: schema.limit(value, key) for key, value in body['quota_set'].items()
                  if key not in schema.NON_QUOTA_KEYS}
        operations.update(self._conf, self._db, project_id=target_project_id, limits=limits)
        quotas = quota.project_quotas(self._conf, self._db, project_id=target_project_id)
        resp.media = view.quota_set(quotas)

    def on_delete(self, req: falcon.Request, resp: falcon.Response,
                  target_project_id: str) -> None:
        """Drop the project's own limits; it falls back to the defaults (200, no body)."""
        self._authorize(req, policy.DELETE_POLICY, target_project_id)
        db_quotas.destroy_project_limits(self._db, project_id=target_project_id)
        resp.status = falcon.HTTP_200


class QuotaSetDefaults:
    """GET /os-quota-sets/{target_project_id}/defaults."""

    def __init__(self, conf, db, enforcer):
        self._conf = conf
        self._db = db
        self._enforcer = enforcer

    def on_get(self, req: falcon.Request, resp: falcon.Response, target_project_id: str) -> None:
        self._enforcer.authorize(req.context.ctx, policy.SHOW_POLICY,
                                 {'project_id': target_project_id})
        resp.media = view.limits_only(quota.defaults(self._conf, self._db), key='quota_set',
                                      set_id=target_project_id)
