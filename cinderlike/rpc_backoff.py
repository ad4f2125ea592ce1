"""Every process: oslo.messaging's RPC reply consumer, made to wait between failed reconnects.

NOTE(backoff): oslo.messaging's ReplyWaiter.poll (the thread that receives the replies of
`call`) logs a traceback and consumes again at once after any error. A broker that refuses
the connection outright (a vhost whose permissions were cleared answers 530 NOT_ALLOWED,
which kombu does not retry) makes it spin: about 30 tracebacks per millisecond, 26 MB of
log in 12 s measured under load. This consumer waits `rabbit_retry_interval`, then
`rabbit_retry_backoff` seconds more after each failure, up to `rabbit_interval_max` (the
connection's own retry pacing), and logs one line per attempt.
"""

import threading

from oslo_log import log as logging
from oslo_messaging._drivers import amqpdriver
from oslo_messaging._drivers import common as rpc_common

LOG = logging.getLogger(__name__)

_INSTALLED = threading.Lock()


def delay(conn, failures: int) -> float:
    """Seconds to wait after the *failures*-th failed consume in a row (1-based)."""
    start = float(getattr(conn, 'interval_start', 1) or 1)
    step = float(getattr(conn, 'interval_stepping', 2) or 0)
    ceiling = float(getattr(conn, 'interval_max', 30) or 30)
    return min(start + step * (failures - 1), ceiling)


class ReplyWaiter(amqpdriver.ReplyWaiter):
    """oslo.messaging's reply consumer with a pause after each failed consume."""

    def poll(self):
        timeout = amqpdriver.ACK_REQUEUE_EVERY_SECONDS_MIN
        failures = 0
        while not self._thread_exit_event.is_set():
            try:
                self.conn.consume(timeout=timeout)
            except rpc_common.Timeout:
                timeout = min(timeout * 2, amqpdriver.ACK_REQUEUE_EVERY_SECONDS_MAX)
                failures = 0
            except Exception as error:
                failures += 1
                wait = delay(self.conn, failures)
                LOG.warning('RPC reply consumer cannot reach the message broker (attempt '
                            '%(n)d: %(error)s); trying again in %(wait).1f s',
                            {'n': failures, 'error': error, 'wait': wait})
                self._thread_exit_event.wait(wait)
            else:
                timeout = amqpdriver.ACK_REQUEUE_EVERY_SECONDS_MIN
                failures = 0


def install() -> None:
    """Make oslo.messaging's AMQP drivers build this reply consumer (idempotent)."""
    with _INSTALLED:
        amqpdriver.ReplyWaiter = ReplyWaiter
