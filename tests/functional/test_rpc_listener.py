"""On a real RabbitMQ, an RPC server built by rpc.get_server listens through
rpc_listener.RpcListener (the idle wait of at least 0.1 s) and still serves casts and
calls."""

import uuid

import pytest

from cinderlike import context, rpc, rpc_listener
from tests.fixtures import daemons
from tests.functional.test_outages import Endpoint

pytestmark = pytest.mark.rabbit


def test_a_server_listens_through_the_idle_wait_listener_and_serves_casts_and_calls(rabbit_conf):
    topic = f'listener-{uuid.uuid4().hex[:8]}'
    endpoint = Endpoint('1.0')
    server = rpc.get_server(rabbit_conf, topic=topic, server='s1', endpoints=[endpoint],
                            version='1.0')
    server.start()
    try:
        # NOTE(private): oslo.messaging keeps the driver's listener behind its adapter.
        assert isinstance(server.listener._poll_style_listener, rpc_listener.RpcListener)
        client = rpc.get_client(rabbit_conf, topic=topic, version='1.0')
        ctx = context.get_admin_context()
        for n in range(5):
            client.cast(ctx, 'note', n=n)
        assert client.call(ctx, 'ping') == 'pong'
        daemons.wait_for(lambda: len(endpoint.methods()) == 6)
        # NOTE(order): the threading executor may dispatch two casts in either order.
        assert sorted(kwargs['n'] for method, kwargs in endpoint.calls if method == 'note') \
            == [0, 1, 2, 3, 4]
    finally:
        server.stop()
        server.wait()
