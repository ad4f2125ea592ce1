"""cinderlike-api: /os-hosts (admin) — the enabled services, and what a volume host holds.

Cinder's deprecated Host API: the list reads the services table (`?zone=` filters it), a
host's usage the volumes and snapshots tables. Cinder's PUT answers 500 (its HostAPI has no
implementation), so it is not served.
"""

import falcon

from cinderlike.api.views import hosts as view
from cinderlike.db import hosts as db_hosts
from cinderlike.db.models import utcnow
from cinderlike.policies import hosts as policy


class Hosts:
    """GET /os-hosts[?zone=]."""

    def __init__(self, conf, db, enforcer):
        self._conf = conf
        self._db = db
        self._enforcer = enforcer

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        self._enforcer.authorize(req.context.ctx, policy.MANAGE_POLICY)
        zone = req.get_param('zone')
        now = utcnow()
        resp.media = {'hosts': [
            view.listed(service, down_time=self._conf.service_down_time, now=now)
            for service in db_hosts.enabled_services(self._db)
            if not zone or service.availability_zone == zone]}


class Host:
    """GET /os-hosts/{host}: volume and snapshot counts and GB, in total and per project."""

    def __init__(self, db, enforcer):
        self._db = db
        self._enforcer = enforcer

    def on_get(self, req: falcon.Request, resp: falcon.Response, host: str) -> None:
        self._enforcer.authorize(req.context.ctx, policy.MANAGE_POLICY)
        service = db_hosts.volume_service(self._db, host=host)
        total, projects = db_hosts.usage(self._db, host=service.host)
        resp.media = view.shown(host, total, projects)
