"""RPC options: oslo.messaging's own (`transport_url`, `control_exchange`, `rpc_response_timeout`).

oslo.messaging declares them itself; registering its definitions here makes them readable
before the first transport is built. The sample file lists them under the oslo.messaging
namespace, so list_opts() adds nothing of cinderlike's.
"""

import oslo_messaging
from oslo_messaging import opts as messaging_opts
from oslo_messaging._metrics import client as messaging_metrics
from oslo_messaging._tracing import client as messaging_tracing


def register_opts(conf):
    for group, opts in messaging_opts.list_opts():
        conf.register_opts(opts, group=group)
    # NOTE(oslo.messaging 18): the tracing and metrics options are registered on the global
    # cfg.CONF only, and a transport built on a private ConfigOpts reads them at its first cast.
    conf.register_opts(messaging_tracing.oslo_messaging_tracing, group='oslo_messaging_tracing')
    conf.register_opts(messaging_metrics.oslo_messaging_metrics, group='oslo_messaging_metrics')
    # Cinder's exchange name, so queues line up with what operators know.
    oslo_messaging.set_transport_defaults('openstack')


def list_opts():
    return []
