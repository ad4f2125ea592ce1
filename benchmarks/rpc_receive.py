"""CPU a service spends per cast it receives, over a real RabbitMQ, by the gap between casts.

    .venv/bin/python benchmarks/rpc_receive.py [--casts 500] [--gaps 0,0.01,0.04]
        [--listener cinderlike|oslo] [--pairs]

A server built by rpc.get_server (oslo.messaging's threading executor, the daemons' one)
takes the casts of a sender in another process, one every GAP seconds (0: back to back),
on a topic of its own on CINDERLIKE_TEST_RABBIT_URL. One JSON line: the server process's CPU
ms per cast for each gap, from the first cast received to the last, and how many threads
dispatched them. `--listener oslo` serves through oslo.messaging's own RPC listener instead
of rpc_listener.RpcListener. `--pairs`: two casts every GAP, each dispatch holding its
thread 3 ms (as a database round trip would), so that dispatches overlap.
"""

import argparse
import json
import os
import pathlib
import subprocess
import sys
import threading
import time
import uuid

# NOTE(path): run as a script, the project root is not on sys.path.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from oslo_messaging._drivers import amqpdriver  # noqa: E402

from cinderlike import conf as conf_pkg  # noqa: E402
from cinderlike import context, rpc, rpc_listener  # noqa: E402

RABBIT_URL = os.environ.get('CINDERLIKE_TEST_RABBIT_URL',
                            'rabbit://guest:guest@127.0.0.1:5672/')
PAYLOAD = 'x' * 2000  # about a create_volume cast's arguments
HOLD_S = 0.003  # with --pairs, how long each dispatch holds its thread


def _conf():
    conf = conf_pkg.new_conf()
    conf([], default_config_files=[])
    conf.set_override('transport_url', RABBIT_URL)
    return conf


class Counter:
    """The endpoint: counts casts and the threads they ran on; notes the CPU time at the
    first and the last."""

    def __init__(self, expected: int, hold: float):
        self.target = rpc.messaging.Target(version='1.0')
        self.expected = expected
        self.hold = hold
        self.threads = set()
        self.count = 0
        self.first_cpu = self.last_cpu = 0.0
        self.done = threading.Event()
        self._lock = threading.Lock()

    def note(self, ctxt, **_kwargs):
        time.sleep(self.hold)
        with self._lock:
            self.threads.add(threading.current_thread().name)
            self.count += 1
            if self.count == 1:
                self.first_cpu = time.process_time()
            if self.count == self.expected:
                self.last_cpu = time.process_time()
                self.done.set()


def receive(*, casts: int, gap: float, listener_cls, pairs: bool) -> dict:
    """CPU ms per cast of this process while it receives *casts* sent *gap* s apart (two at
    a time with *pairs*), and the number of threads that dispatched them."""
    conf = _conf()
    topic = f'bench-receive-{uuid.uuid4().hex[:8]}'
    counter = Counter(casts, HOLD_S if pairs else 0)
    server = rpc.get_server(conf, topic=topic, server='s1', endpoints=[counter],
                            version='1.0')
    # NOTE(listener): rpc.get_transport installed ours; the driver picks the class at start.
    amqpdriver.RpcAMQPListener = listener_cls
    server.start()
    try:
        sender = subprocess.Popen([sys.executable, __file__, '--send', topic,
                                   '--casts', str(casts), '--gaps', str(gap)]
                                  + (['--pairs'] if pairs else []))
        if not counter.done.wait(60 + casts * gap * 3):
            raise RuntimeError(f'{counter.count} of {casts} casts received')
        sender.wait(30)
    finally:
        server.stop()
        server.wait()
    # NOTE(first): the first cast's own cost is not counted, only the casts after it.
    return {'cpu_ms_per_cast': round(1000 * (counter.last_cpu - counter.first_cpu)
                                     / (casts - 1), 3),
            'dispatch_threads': len(counter.threads)}


def send(*, topic: str, casts: int, gap: float, pairs: bool) -> None:
    client = rpc.get_client(_conf(), topic=topic, version='1.0', server='s1')
    ctx = context.get_admin_context()
    time.sleep(1)  # the server's queue is declared by its start; let it settle
    for n in range(casts):
        client.cast(ctx, 'note', data=PAYLOAD)
        if gap and (not pairs or n % 2):
            time.sleep(gap)
    rpc.cleanup()


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--casts', type=int, default=500)
    parser.add_argument('--gaps', default='0,0.01,0.04')
    parser.add_argument('--listener', choices=('cinderlike', 'oslo'), default='cinderlike')
    parser.add_argument('--pairs', action='store_true')
    parser.add_argument('--send', metavar='TOPIC', help=argparse.SUPPRESS)
    args = parser.parse_args()
    gaps = [float(g) for g in args.gaps.split(',')]
    if args.send:
        send(topic=args.send, casts=args.casts, gap=gaps[0], pairs=args.pairs)
        return
    listener_cls = (rpc_listener.RpcListener if args.listener == 'cinderlike'
                    else rpc_listener.RpcListener.__bases__[0])
    figures = {str(gap): receive(casts=args.casts, gap=gap, listener_cls=listener_cls,
                                 pairs=args.pairs)
               for gap in gaps}
    rpc.cleanup()
    print(json.dumps({'casts': args.casts, 'listener': args.listener, 'pairs': args.pairs,
                      'by_gap_s': figures}))


if __name__ == '__main__':
    main()
