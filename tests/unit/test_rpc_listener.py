"""rpc_listener.py: an RPC server's listener waits at least IDLE_WAIT_S for a message after
each one, doubling while none comes up to oslo.messaging's ceiling, instead of from 1 ms;
while its broker connection is down, its waits are oslo.messaging's. A received message's
context is handed on copied once, not deep-copied."""

import types

import pytest
from oslo_messaging._drivers import amqp as rpc_amqp
from oslo_messaging._drivers import amqpdriver
from oslo_messaging._drivers import common as rpc_common

from cinderlike import rpc_listener

OSLO_LISTENER = rpc_listener.RpcListener.__bases__[0]


class ScriptedConnection:
    """What a listener polls: each consume is the next step of *script*, 'message' (a
    message arrives before the wait ends) or 'idle' (the wait times out)."""

    def __init__(self, script, *, connected=True):
        self.script = list(script)
        self.waits = []
        self.listener = None
        # the pool's ConnectionContext → oslo.messaging's rabbit Connection → kombu's
        self.connection = types.SimpleNamespace(
            connection=types.SimpleNamespace(connected=connected))

    def consume(self, timeout=None):
        self.waits.append(timeout)
        if self.script.pop(0) == 'message':
            self.listener.incoming.append(types.SimpleNamespace(unique_id='m'))
            return
        raise rpc_common.Timeout()


def _waits(listener_cls, script, *, connected=True) -> list[float]:
    conn = ScriptedConnection(script, connected=connected)
    conn.listener = listener_cls(types.SimpleNamespace(prefetch_size=0), conn)
    while conn.script:
        assert len(conn.listener.poll()) == 1
    return conn.waits


def test_after_a_message_the_first_wait_is_the_idle_wait_and_it_doubles_while_idle():
    script = ['message', 'idle', 'idle', 'idle', 'message', 'message']
    assert _waits(rpc_listener.RpcListener, script) == pytest.approx(
        [0.1, 0.1, 0.2, 0.4, 0.8, 0.1])
    # oslo.messaging's own listener: a millisecond, so a cast every 40 ms costs six waits.
    assert _waits(OSLO_LISTENER, script) == pytest.approx(
        [0.001, 0.001, 0.002, 0.004, 0.008, 0.001])


def test_the_wait_stops_growing_at_oslo_messagings_ceiling():
    waits = _waits(rpc_listener.RpcListener, ['idle'] * 8 + ['message'])
    assert waits == pytest.approx([0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 5.0, 5.0, 5.0])
    assert amqpdriver.ACK_REQUEUE_EVERY_SECONDS_MAX == 5.0


def test_while_the_connection_is_down_the_waits_are_oslo_messagings():
    # NOTE(outage): short waits make each consume give up and try the broker again soon.
    script = ['idle', 'idle', 'message']
    waits = _waits(rpc_listener.RpcListener, script, connected=False)
    assert waits == pytest.approx(_waits(OSLO_LISTENER, script))
    assert waits == pytest.approx([0.001, 0.002, 0.004])


def test_install_makes_the_drivers_build_this_listener(monkeypatch):
    monkeypatch.setattr(amqpdriver, 'RpcAMQPListener', OSLO_LISTENER)
    rpc_listener.install()
    assert amqpdriver.RpcAMQPListener is rpc_listener.RpcListener


def test_a_received_context_is_handed_on_as_a_copy_of_its_top_level():
    rpc_listener.install()
    roles = ['admin', 'member']
    message = {'_context_user_id': 'u', '_context_roles': roles, '_msg_id': None,
               'method': 'create_volume', 'args': {}}
    ctxt = rpc_amqp.unpack_context(message)
    assert isinstance(ctxt, rpc_listener.MessageContext)
    handed_on = ctxt.to_dict()
    assert handed_on == {'user_id': 'u', 'roles': ['admin', 'member'], 'client_timeout': None}
    assert handed_on is not ctxt.values
    handed_on['user_id'] = 'other'
    assert ctxt.user_id == 'u'
    assert message == {'method': 'create_volume', 'args': {}}
