"""On a real RabbitMQ, an RPC server built by rpc.get_server dispatches on threads started
only as its load asks: one at a time needs few, many at once get as many."""

import threading
import uuid

import futurist
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
        self.met.append(n)

    def note(self, ctxt, n):
        self.noted.append(n)


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


def test_casts_one_at_a_time_are_dispatched_on_few_threads(serving):
    endpoint = Blocking(parties=1)
    server, client = serving(endpoint)
    # NOTE(private): oslo.messaging builds the executor from the class at start().
    executor = server._work_executor
    assert isinstance(executor, futurist.DynamicThreadPoolExecutor)
    ctx = context.get_admin_context()
    for n in range(80):
        client.cast(ctx, 'note', n=n)
        daemons.wait_for(lambda n=n: len(endpoint.noted) == n + 1)
    # futurist's plain ThreadPoolExecutor would have started 64 threads (one per cast).
    assert executor.num_workers <= 2


def test_dispatches_that_wait_for_each_other_all_get_a_thread(serving):
    parties = 12
    endpoint = Blocking(parties=parties)
    server, client = serving(endpoint)
    ctx = context.get_admin_context()
    for n in range(parties):
        client.cast(ctx, 'meet', n=n)
    daemons.wait_for(lambda: len(endpoint.met) == parties, timeout=30)
    assert sorted(endpoint.met) == list(range(parties))
    assert server._work_executor.num_workers >= parties
