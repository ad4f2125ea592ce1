"""Every process that serves RPC: oslo.messaging's RPC server listener, made to wait longer
for the next message while its queue is empty, and a received message's context copied once.

NOTE(idle_wait): after each message oslo.messaging's AMQP listener waits 1 ms for the next,
doubling the wait up to 5 s while none comes, so that the acknowledgements and requeues a
dispatch thread queued run soon on the listener's thread. An RPC listener queues none: it
acknowledges a request as it receives it, and its messages' acknowledge and requeue do
nothing. Each wait that times out costs about 0.4 ms of CPU (kombu's retry wrapper and the
timeout raised through it), so a service receiving a cast every 40 ms spent 4.9 ms of CPU
per cast, 1.9 ms with the first wait at IDLE_WAIT_S (benchmarks/README.md, eleventh pass).
A message ends a wait as soon as it arrives; the wait bounds only how soon an idle listener
sees that it was stopped, as the 5 s ceiling already does. While the broker connection is
down the waits stay oslo.messaging's (see NOTE(outage)).
"""

import threading

from oslo_messaging._drivers import amqp as rpc_amqp
from oslo_messaging._drivers import amqpdriver

IDLE_WAIT_S = 0.1  # the first wait after a message; it doubles up to oslo.messaging's 5 s

_INSTALLED = threading.Lock()


class RpcListener(amqpdriver.RpcAMQPListener):
    """oslo.messaging's RPC listener whose wait for a message is at least IDLE_WAIT_S."""

    @property
    def _current_timeout(self) -> float:
        return self._idle_wait

    @_current_timeout.setter
    def _current_timeout(self, seconds: float) -> None:
        # NOTE(outage): while the broker connection is down, oslo.messaging's own waits: a
        # consume that fails within its wait gives up at once, so the next one tries the
        # broker again; with longer waits kombu sleeps between tries inside one consume, and
        # a listener came back after a RabbitMQ outage later than a call's 5 s timeout.
        # (the pool's ConnectionContext, oslo.messaging's rabbit Connection, kombu's)
        connected = self.conn.connection.connection.connected
        self._idle_wait = max(seconds, IDLE_WAIT_S) if connected else seconds


class MessageContext(rpc_amqp.RpcContext):
    """The context of a received message, whose to_dict copies only the top level.

    NOTE(copy): oslo.messaging's listener builds this from the keys it pops off the message
    it has just decoded, then hands `to_dict()` on and drops the context: nothing else holds
    the values, yet its to_dict deep-copies them (about 40 `deepcopy` calls per cast).
    """

    def to_dict(self) -> dict:
        return dict(self.values)


def install() -> None:
    """Make oslo.messaging's AMQP drivers build this listener for RPC servers, and its
    listeners this context for the messages they receive (idempotent)."""
    with _INSTALLED:
        amqpdriver.RpcAMQPListener = RpcListener
        rpc_amqp.RpcContext = MessageContext
