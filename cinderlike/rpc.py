"""RPC plumbing shared by every process: transport, context serializer, client and server makers.

Topics follow Cinder's so a reader of Cinder's docs finds the queues they expect:
`cinder-scheduler`, `cinder-volume.<host>@<backend>` (host topic),
`cinder-volume.<cluster>@<backend>` (cluster topic) and `cinder-backup`.
"""

import concurrent.futures
import functools
import threading

import amqp.exceptions
import kombu.exceptions
import oslo_messaging as messaging

from cinderlike import context as context_mod
from cinderlike import exception, rpc_backoff, rpc_listener

SCHEDULER_TOPIC = 'cinder-scheduler'
VOLUME_TOPIC = 'cinder-volume'
BACKUP_TOPIC = 'cinder-backup'

# What sending raises when the broker cannot be reached or no service answered a call in
# time. NOTE(new_connection): a send that has to open a connection while the broker refuses
# it (530 NOT_ALLOWED) gets py-amqp's or kombu's own error, not MessageDeliveryFailure.
SEND_FAILURES = (messaging.MessageDeliveryFailure, messaging.MessagingTimeout,
                 amqp.exceptions.AMQPError, kombu.exceptions.KombuError)

# NOTE(transport): the fake driver keeps its queues inside the transport object, so every
# service of cinderlike-all must share one transport for their messages to meet. One
# transport per (process, url) also spares RabbitMQ a connection pool per client.
_TRANSPORTS = {}
_NOTIFICATION_TRANSPORTS = {}
_LOCK = threading.Lock()


def get_transport(conf):
    """The process-wide RPC transport for `[DEFAULT] transport_url`."""
    rpc_backoff.install()
    rpc_listener.install()
    with _LOCK:
        key = (id(conf), conf.transport_url)
        if key not in _TRANSPORTS:
            # NOTE(exmods): a call's server-side cinderlike exception comes back as itself
            # (its HTTP code intact), as Cinder allows cinder.exception.
            _TRANSPORTS[key] = messaging.get_rpc_transport(
                conf, allowed_remote_exmods=[exception.__name__])
        return _TRANSPORTS[key]


def get_notification_transport(conf):
    """The process-wide notification transport (same URL as RPC unless configured)."""
    with _LOCK:
        key = id(conf)
        if key not in _NOTIFICATION_TRANSPORTS:
            _NOTIFICATION_TRANSPORTS[key] = messaging.get_notification_transport(conf)
        return _NOTIFICATION_TRANSPORTS[key]


def cleanup():
    """Close every transport this process opened (service stop, test teardown)."""
    with _LOCK:
        for transport in list(_TRANSPORTS.values()) + list(_NOTIFICATION_TRANSPORTS.values()):
            transport.cleanup()
        _TRANSPORTS.clear()
        _NOTIFICATION_TRANSPORTS.clear()


class ContextSerializer(messaging.Serializer):
    """Carries the RequestContext (request id, user, project, roles, is_admin) across RPC."""

    def serialize_entity(self, ctxt, entity):
        return entity

    def deserialize_entity(self, ctxt, entity):
        return entity

    def serialize_context(self, ctxt):
        return ctxt.to_dict()

    def deserialize_context(self, ctxt):
        return context_mod.RequestContext.from_dict(ctxt)


def get_client(conf, *, topic, version, server=None, fanout=False, version_cap=None,
               retry=None):
    """An RPC client on *topic*; rpcapi modules wrap it with named methods.

    *retry* bounds how often a send is tried again while the broker cannot be reached
    (None: until it can, oslo.messaging's default); then MessageDeliveryFailure.
    """
    target = messaging.Target(topic=topic, version=version, server=server, fanout=fanout)
    return messaging.get_rpc_client(get_transport(conf), target, version_cap=version_cap,
                                    serializer=ContextSerializer(), retry=retry)


def get_server(conf, *, topic, server, endpoints, version, fanout=False):
    """An RPC server on oslo.messaging's threading executor (its only non-deprecated one),
    its pool of dispatch threads grown only when the threads it has are busy."""
    target = messaging.Target(topic=topic, server=server, version=version, fanout=fanout)
    rpc_server = messaging.get_rpc_server(get_transport(conf), target, endpoints,
                                          serializer=ContextSerializer(),
                                          access_policy=messaging.DefaultRPCAccessPolicy)
    # NOTE(threads): oslo.messaging's threading executor is futurist's ThreadPoolExecutor,
    # which starts a new thread for each of the first `executor_thread_pool_size` (64)
    # messages even while the threads it started are idle. futurist's
    # DynamicThreadPoolExecutor stops an idle thread whenever a message finds fewer than 40 %
    # of its threads busy and starts one again at 80 %, so two casts that overlap start and
    # stop a thread, and it keeps each stopped thread until shutdown (1,300 per 3,000
    # overlapping casts). The stdlib's pool starts a thread only when none is idle and keeps
    # it: the same ceiling, no churn, as many threads as dispatches were ever at once.
    # start() builds the executor from this.
    rpc_server._executor_cls = functools.partial(
        concurrent.futures.ThreadPoolExecutor, thread_name_prefix=f'rpc-{topic}')
    return rpc_server


def get_notifier(conf, *, publisher_id):
    """An oslo.messaging Notifier; `[oslo_messaging_notifications] driver` decides if it sends."""
    return messaging.Notifier(get_notification_transport(conf), publisher_id=publisher_id,
                              serializer=ContextSerializer())


def volume_topic(host):
    """Topic of a volume backend's own queue: `cinder-volume.<host@backend>` (pool dropped)."""
    return f'{VOLUME_TOPIC}.{host.partition("#")[0]}'


def server_of(host):
    """oslo.messaging server name of `host@backend#pool`: the host part (Cinder's rule)."""
    return host.partition('@')[0]
