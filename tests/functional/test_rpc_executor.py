"""On a real RabbitMQ, an RPC server built by rpc.get_server dispatches on threads started
only as its load asks and kept: one at a time needs one, many at once get as many, and
dispatches that overlap again and again reuse the threads they started."""

import threading
import uuid

import oslo_messaging as messaging
import pytest

from cinderlike import context, rpc
from tests.fixtures import daemons

pytestmark = pytest.mark.rabbit


class Blocking:
    """`meet` waits until *parties* dispatches are in it at once; `note` counts."""

    target = messaging.Target(version='1.0')

    def __init__(self, parties: int):
        self.barrier = threading.Barrier(parties, timeout=20)
        self.met = []
        self.noted = []

    def meet(self, ctxt, n):
        self.barrier.wait()
        self.met.append((n, threading.current_thread().name))

    def note(self, ctxt, n):
        self.noted.append((n, threading.current_thread().name))


def _names(dispatches):
    return {name for _n, name in dispatches}


@pytest.fixture
def serving(rabbit_conf):
    servers = []

    def start(endpoint):
        topic = f'executor-{uuid.uuid4().hex[:8]}'
        server = rpc.get_server(rabbit_conf, topic=topic, server='s1', endpoints=[endpoint],
                                version='1.0')
        server.start()
        servers.append(server)
        return server, rpc.get_client(rabbit_conf, topic=topic, version='1.0')
    yield start
    for server in servers:
        server.stop()
        server.wait()


def test_casts_one_at_a_time_are_dispatched_on_one_thread(serving):
    endpoint = Blocking(parties=1)
    _server, client = serving(endpoint)
    ctx = context.get_admin_context()
    for n in range(80):
        client.cast(ctx, 'note', n=n)
        daemons.wait_for(lambda n=n: len(endpoint.noted) == n + 1)
    # futurist's ThreadPoolExecutor, oslo.messaging's default, would have started 64.
    assert len(_names(endpoint.noted)) == 1


def test_casts_that_overlap_again_and_again_reuse_their_threads(serving):
    endpoint = Blocking(parties=2)
    _server, client = serving(endpoint)
    ctx = context.get_admin_context()
    for pair in range(20):
        client.cast(ctx, 'meet', n=2 * pair)
        client.cast(ctx, 'meet', n=2 * pair + 1)
        daemons.wait_for(lambda pair=pair: len(endpoint.met) == 2 * pair + 2)
    assert sorted(n for n, _name in endpoint.met) == list(range(40))
    # futurist's DynamicThreadPoolExecutor stopped a thread and started another for about
    # every pair, and kept each stopped one until shutdown.
    assert len(_names(endpoint.met)) == 2


def test_dispatches_that_wait_for_each_other_all_get_a_thread(serving):
    parties = 12
    endpoint = Blocking(parties=parties)
    _server, client = serving(endpoint)
    ctx = context.get_admin_context()
    for n in range(parties):
        client.cast(ctx, 'meet', n=n)
    daemons.wait_for(lambda: len(endpoint.met) == parties, timeout=30)
    assert sorted(n for n, _name in endpoint.met) == list(range(parties))
    assert len(_names(endpoint.met)) == parties
