"""rpc_backoff.py: the RPC reply consumer waits between failed consumes (growing, capped)
instead of spinning, and resets after a consume that works."""

import threading

from oslo_messaging._drivers import amqpdriver
from oslo_messaging._drivers import common as rpc_common

from cinderlike import rpc_backoff
from tests.fixtures import daemons


class RefusingBroker:
    """The connection a reply consumer polls: *failures* consumes fail, then they time out
    (an idle reply queue); the pacing options of oslo.messaging's rabbit connection."""

    interval_start = 0.01
    interval_stepping = 0.02
    interval_max = 0.05

    def __init__(self, failures):
        self.failures = failures
        self.consumes = 0
        self.lock = threading.Lock()

    def declare_direct_consumer(self, queue, callback):
        pass

    def stop_consuming(self):
        pass

    def consume(self, timeout=None):
        with self.lock:
            self.consumes += 1
            if self.consumes <= self.failures:
                raise ConnectionRefusedError('NOT_ALLOWED - access to vhost refused')
        raise rpc_common.Timeout()


def test_delay_grows_by_the_backoff_up_to_the_ceiling():
    conn = RefusingBroker(0)
    conn.interval_start, conn.interval_stepping, conn.interval_max = 1, 2, 30
    assert [rpc_backoff.delay(conn, n) for n in (1, 2, 3, 15, 16, 40)] == [1, 3, 5, 29, 30, 30]


def test_each_failed_consume_is_followed_by_a_pause_and_one_warning(caplog):
    conn = RefusingBroker(failures=5)
    caplog.set_level('WARNING', logger='cinderlike.rpc_backoff')
    waiter = rpc_backoff.ReplyWaiter('reply_q', conn, [])
    try:
        daemons.wait_for(lambda: conn.consumes > 5)
    finally:
        waiter.stop()
    warnings = [r.getMessage() for r in caplog.records if r.name == 'cinderlike.rpc_backoff']
    assert len(warnings) == 5
    assert [w.rsplit('again in ', 1)[1] for w in warnings] == [
        '0.0 s', '0.0 s', '0.1 s', '0.1 s', '0.1 s']
    assert not any(r.exc_info for r in caplog.records)


def test_install_makes_the_drivers_build_this_consumer():
    rpc_backoff.install()
    assert amqpdriver.ReplyWaiter is rpc_backoff.ReplyWaiter
