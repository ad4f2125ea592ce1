"""cinderlike-api: os-quota-class-sets — the limits of a quota class; 'default' feeds every
project without its own limit."""

import falcon

from cinderlike import quota
from cinderlike.api import validation
from cinderlike.api.resources import quota_sets
from cinderlike.api.schemas import quota_sets as schema
from cinderlike.api.views import quota_sets as view
from cinderlike.db import quotas as db_quotas
from cinderlike.policies import quota_class_sets as policy


class QuotaClassSet:
    """GET/PUT /os-quota-class-sets/{class_name} (admin)."""

    def __init__(self, conf, db, enforcer):
        self._conf = conf
        self._db = db
        self._enforcer = enforcer

    def on_get(self, req: falcon.Request, resp: falcon.Response, class_name: str) -> None:
        self._enforcer.authorize(req.context.ctx, policy.GET_POLICY)
        limits = quota.class_quotas(self._conf, self._db, class_name=class_name)
        resp.media = view.limits_only(limits, key='quota_class_set', set_id=class_name)

    def on_put(self, req: falcon.Request, resp: falcon.Response, class_name: str) -> None:
        """:raises ValidationError, InvalidInput: nothing is written then."""
        body = quota_sets.load_body(req, self._db, schema.update_quota_class)
        self._enforcer.authorize(req.context.ctx, policy.UPDATE_POLICY)
        validation.check_length(class_name, 'quota_class_name')
        limits = {key: int(value) for key, value in body['quota_class_set'].items()}
        db_quotas.set_class_limits(self._db, class_name=class_name, limits=limits)
        limits = quota.class_quotas(self._conf, self._db, class_name=class_name)
        resp.media = view.limits_only(limits, key='quota_class_set')
