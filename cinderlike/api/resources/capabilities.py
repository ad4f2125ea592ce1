"""cinderlike-api: capabilities — what one backend offers, asked of its volume service by an
RPC call (admins only)."""

import falcon
import oslo_messaging as messaging

from cinderlike import exception
from cinderlike.api.views import capabilities as view
from cinderlike.db import services as db_services
from cinderlike.policies import capabilities as policy


class Capabilities:
    """GET /capabilities/{host}: *host* is a host, `host@backend` or a cluster name."""

    def __init__(self, db, enforcer, rpc):
        self._db = db
        self._enforcer = enforcer
        self._rpc = rpc

    def on_get(self, req: falcon.Request, resp: falcon.Response, host: str) -> None:
        """:raises NotFound: no volume service matches *host*; RPCTimeout: it did not answer."""
        ctx = req.context.ctx
        self._enforcer.authorize(ctx, policy.CAPABILITIES_POLICY)
        services = db_services.get_all(self._db, host_or_cluster=host,
                                       binary=db_services.VOLUME_BINARY)
        if not services:
            raise exception.NotFound(f"Can't find service: {host}")
        # Cinder's service_topic_queue: a clustered backend is asked through its cluster.
        backend = services[0].cluster_name or services[0].host
        try:
            capabilities = self._rpc.volume.get_capabilities(ctx, host=backend, discover=False)
        except messaging.MessagingTimeout:
            raise exception.RPCTimeout(service=backend) from None
        resp.media = view.show(capabilities, backend=backend)
