"""A chaos run: the four daemons on a private RabbitMQ node and a private PostgreSQL cluster,
a mixed workload (tests/functional/e2e/chaos_load.py) for a bounded time, and faults on a
schedule drawn from a seeded RNG: kill -9 of a random daemon about every `kill_interval`
seconds (restarted a few seconds later), one restart of RabbitMQ and one of PostgreSQL.

Once everything has settled, result() counts what must be zero: resources still transitional
2 × service_down_time after the run, quota drift (`cinderlike-manage quota check`), capacity
drift (`cinderlike-manage capacity check`), accepted operations that neither completed nor
ended in error with a user message, and 5xx answers other than a 503 while a server was down.

Shared by benchmarks/chaos.py and tests/functional/e2e/test_chaos.py.
"""

import contextlib
import dataclasses
import pathlib
import random
import subprocess
import threading
import time

import sqlalchemy as sa

from tests.fixtures import private_servers
from tests.fixtures.database import fresh_database
from tests.functional.e2e import chaos_load
from tests.functional.e2e.stack import PROJECT, Stack, wait_for

DAEMONS = ('api', 'scheduler', 'volume', 'backup')
BACKENDS = ('b1', 'b2')
STARTUP = 120
V = f'/v3/{PROJECT}'
REQUIRED_ZERO = ('stuck_transitional', 'quota_drift', 'capacity_drift', 'unfinished',
                 'bad_5xx')


def passed(result: dict) -> bool:
    """Every required count zero, every scheduled fault made, every client to the end."""
    return (result['fault_failure'] is None and not result['client_failures']
            and all(result[key] == 0 for key in REQUIRED_ZERO))


@dataclasses.dataclass
class Options:
    duration: float = 300.0        # seconds of workload
    seed: int = 1
    clients: int = 4
    kill_interval: float = 20.0    # mean seconds between two kill -9
    outage: float = 5.0            # seconds RabbitMQ and PostgreSQL stay down
    report_interval: int = 5
    service_down_time: int = 30
    rpc_response_timeout: int = 10
    api_workers: int = 2
    debug: bool = False            # DEBUG logs of the daemons (with --keep-logs)
    # [oslo_messaging_rabbit] amqp_durable_queues: queues (and the casts in them) outlive a
    # broker restart, so a cast sent before its consumer has reconnected is not dropped
    durable_queues: bool = False


def _configure(stack: Stack, workdir: pathlib.Path, options: Options):
    stack.update_config(debug=options.debug, osapi_volume_workers=options.api_workers,
                        rpc_response_timeout=options.rpc_response_timeout,
                        scheduler_driver_init_wait_time=5,
                        backup_posix_path=workdir / 'backups',
                        backup_compression_algorithm='zstd',
                        backup_driver_init_check_interval=2,
                        # NOTE(lost_cast): a broker restart drops the casts queued for a
                        # consumer that has not reconnected (queues are not durable, as in
                        # Cinder); the sweep settles them within the run's settle window.
                        lost_operation_timeout=options.service_down_time,
                        lost_operation_interval=5)
    stack.update_config('database', max_pool_size=5, max_overflow=5)
    if options.durable_queues:
        stack.update_config('oslo_messaging_rabbit', amqp_durable_queues=True)
    # NOTE(backends): both on the file driver, so clones, snapshots and backups copy the
    # image files' bytes; hosts open the files (no target).
    for backend in BACKENDS:
        stack.update_config(backend, volume_driver='file', target_helper='fake',
                            file_volume_directory=workdir / f'volumes-{backend}',
                            backend_stats_polling_interval=max(3, options.report_interval))


class Faults:
    """The fault schedule and its run; `windows` are (start, end, what) in monotonic time,
    from the fault until the server or daemon answers again."""

    def __init__(self, stack, servers, rng: random.Random, options: Options):
        self.stack, self.servers, self.rng, self.options = stack, servers, rng, options
        self.windows: list[tuple[float, float, str]] = []
        self.restarts = 0
        self.failure: str | None = None  # why the schedule stopped short
        self.schedule = self._draw()

    def _draw(self) -> list[tuple[float, str]]:
        duration, mean = self.options.duration, self.options.kill_interval
        events, at = [], mean * self.rng.uniform(0.75, 1.25)
        while at < duration - 5:
            events.append((at, self.rng.choice(DAEMONS)))
            at += mean * self.rng.uniform(0.75, 1.25)
        events += [(duration * self.rng.uniform(0.25, 0.4), 'rabbitmq'),
                   (duration * self.rng.uniform(0.55, 0.7), 'postgresql')]
        return sorted(events)

    def run(self, started: float):
        """Every fault in turn, at its time or as soon as the one before has ended."""
        try:
            for at, what in self.schedule:
                time.sleep(max(0.0, started + at - time.monotonic()))
                if what in self.servers:
                    stopped, back = private_servers.pause(self.servers[what],
                                                          self.options.outage)
                    self.windows.append((stopped, back, what))
                else:
                    self.kill(what)
        except Exception as exc:  # reported in the result, which then cannot pass
            self.failure = f'{what}: {exc}'

    def kill(self, name):
        """kill -9 of daemon *name*'s process group; started again 2-5 s later."""
        daemon = self.stack.daemons[name]
        killed = time.monotonic()
        daemon.kill_group()
        # NOTE(logs): the restarted daemon writes the same file name; the dead one's log stays.
        self.restarts += 1
        daemon.log_path.rename(daemon.log_path.with_suffix(f'.killed-{self.restarts}.log'))
        time.sleep(self.rng.uniform(2, 5))
        self.windows.append((killed, self.start(name), f'kill -9 {name}'))

    def start(self, name) -> float:
        """Start daemon *name*; monotonic time once it serves."""
        daemon = self.stack.start(name)
        if name == 'api':
            self.stack.wait_for_api(timeout=STARTUP)
        else:
            wanted = len(BACKENDS) if name == 'volume' else 1
            wait_for(lambda: len(daemon.started_services()) >= wanted, timeout=STARTUP,
                     what=f'{name} to start')
        return time.monotonic()

    def revive(self) -> list[str]:
        """Start every daemon that exited by itself; their names."""
        dead = [name for name in DAEMONS if self.stack.daemons[name].proc.poll() is not None]
        for name in dead:
            self.start(name)
        return dead

    def during(self, start: float, end: float, grace: float = 0.0) -> list[str]:
        """The faults whose windows (extended by *grace*) overlap [start, end]."""
        return [what for begin, finish, what in self.windows
                if begin <= end and start <= finish + grace]


@contextlib.contextmanager
def deployment(workdir: pathlib.Path, options: Options):
    """(stack, servers): the four daemons started on a private RabbitMQ and PostgreSQL."""
    rabbit = private_servers.PrivateRabbit()
    postgres = private_servers.PrivatePostgres()
    with private_servers.running(rabbit), private_servers.running(postgres), \
            fresh_database(postgres.url) as db_url:
        stack = Stack(workdir, db_url=db_url, transport_url=rabbit.url,
                      backends=BACKENDS, report_interval=options.report_interval,
                      service_down_time=options.service_down_time, rabbitmqctl=rabbit.ctl)
        try:
            _configure(stack, workdir, options)
            stack.run('cinderlike-manage', 'db', 'sync')
            stack.start_all(timeout=STARTUP)
            stack.ok('PUT', f'{V}/os-quota-sets/{PROJECT}', {'quota_set': {
                'volumes': -1, 'gigabytes': -1, 'snapshots': -1, 'backups': -1,
                'backup_gigabytes': -1}}, expect=200)
            yield stack, {'rabbitmq': rabbit, 'postgresql': postgres}, db_url
        finally:
            stack.close()


def run(workdir: pathlib.Path, options: Options) -> dict:
    """One chaos run; its result (see result())."""
    rng = random.Random(options.seed)
    with deployment(workdir, options) as (stack, servers, db_url):
        reader = chaos_load.Reader(db_url)
        ledger = chaos_load.Ledger()
        faults = Faults(stack, servers, rng, options)
        stop = threading.Event()
        api = chaos_load.Api(stack.api_url, stack.identity.token(), ledger)
        clients = [chaos_load.Client(api=api, reader=reader, ledger=ledger,
                                     rng=random.Random(rng.random()), stop=stop,
                                     op_timeout=2 * options.service_down_time + 60)
                   for _ in range(options.clients)]
        threads = [threading.Thread(target=c.run, daemon=True) for c in clients]
        started = time.monotonic()
        fault_thread = threading.Thread(target=faults.run, args=(started,), daemon=True)
        try:
            for thread in [*threads, fault_thread]:
                thread.start()
            time.sleep(options.duration)
            # NOTE(late): a slow restart delays the faults after it; the load goes on
            # until the last one has been made and undone.
            fault_thread.join()
        finally:
            stop.set()
            for thread in threads:
                thread.join(STARTUP)
        ended = time.monotonic()
        exited = faults.revive()
        for client in clients:
            client.finish()
        settled = settle(reader, 2 * options.service_down_time)
        try:
            return result(stack, reader, ledger, faults, options, started=started, ended=ended,
                          settled=settled, exited=exited)
        finally:
            reader.close()


def settle(reader, seconds) -> float:
    """Wait until nothing is transitional, or *seconds*; the seconds it took."""
    began = time.monotonic()

    def quiet():
        try:
            return not any(reader.unsettled().values())
        except sa.exc.SQLAlchemyError:
            return False
    with contextlib.suppress(AssertionError):
        wait_for(quiet, timeout=seconds, what='every resource to settle')
    return time.monotonic() - began


def _manage_drift(stack, *command) -> list[str]:
    """The drift lines a `cinderlike-manage ... check` printed (exit code 1 when some)."""
    try:
        stack.run('cinderlike-manage', *command)
        return []
    except subprocess.CalledProcessError as exc:  # exit code 1: the output lists the drift
        lines = (exc.stdout or '').splitlines()
        return [line.strip() for line in lines
                if 'invalid' in line or ('@' in line and '#' in line)]


def _unfinished(reader, ledger, faults, started, ended) -> list[dict]:
    """Accepted operations that neither completed nor ended in error with a message."""
    found = []
    for op in ledger.ops:
        outcome = op.outcome
        if outcome is None:
            row = reader.row(op.resource, op.rid) if op.resource != 'attachment' else None
            done = chaos_load.success(op, row)
            outcome = None if done is None else ('done' if done else 'error')
        if outcome == 'done' or (outcome == 'error' and reader.has_message(op.rid, op.since)):
            continue
        row = reader.row(op.resource, op.rid)
        found.append({'op': op.kind, 'id': op.rid, 'at_s': round(op.at - started, 1),
                      'outcome': outcome or 'unsettled',
                      'status': row and ('deleted' if row['deleted'] else row['status']),
                      # the faults between its acceptance and its outcome
                      'faults': faults.during(op.at, op.settled_at or ended)})
    return found


def _bad_5xx(ledger, faults, started, grace) -> tuple[list[dict], int]:
    """5xx answers other than a 503 while a server was down; and the count of those 503s."""
    bad, tolerated = [], 0
    for sent, answered, method, what, status in ledger.answers:
        if status is None or status < 500:
            continue
        during = faults.during(sent, answered, grace)
        if status == 503 and during:
            tolerated += 1
        else:
            bad.append({'at_s': round(sent - started, 1),
                        'took_s': round(answered - sent, 1), 'op': what, 'method': method,
                        'status': status, 'faults': during})
    return bad, tolerated


def result(stack, reader, ledger, faults, options, *, started, ended, settled,
           exited) -> dict:
    """The run's JSON result: `accepted`, then the counts that must be zero, then detail."""
    unsettled = reader.unsettled()
    quota = _manage_drift(stack, 'quota', 'check')
    capacity = _manage_drift(stack, 'capacity', 'check')
    unfinished = _unfinished(reader, ledger, faults, started, ended)
    # NOTE(grace): a call sent just before a server went away fails when it times out.
    bad, tolerated = _bad_5xx(ledger, faults, started, options.rpc_response_timeout + 5)
    kinds: dict[str, int] = {}
    for op in ledger.ops:
        kinds[op.kind] = kinds.get(op.kind, 0) + 1
    return {
        'accepted': len(ledger.ops),
        'stuck_transitional': sum(len(rows) for rows in unsettled.values()),
        'quota_drift': len(quota),
        'capacity_drift': len(capacity),
        'unfinished': len(unfinished),
        'bad_5xx': len(bad),
        'duration_s': round(ended - started, 1),
        'settle_s': round(settled, 1),
        'seed': options.seed,
        'accepted_by_kind': kinds,
        'answers': len(ledger.answers),
        'unanswered': sum(1 for answer in ledger.answers if answer[-1] is None),
        'slowest_answer_s': round(max((a[1] - a[0] for a in ledger.answers), default=0), 1),
        'tolerated_503': tolerated,
        'ended_in_error': sum(1 for op in ledger.ops if op.outcome == 'error'),
        'faults': [{'at_s': round(begin - started, 1), 'what': what,
                    'down_s': round(end - begin, 1)} for begin, end, what in faults.windows],
        'fault_failure': faults.failure,
        'client_failures': ledger.failures,
        'exited_by_themselves': exited,
        'stuck_detail': {kind: rows[:10] for kind, rows in unsettled.items() if rows},
        'quota_detail': quota[:10],
        'capacity_detail': capacity[:10],
        'unfinished_detail': unfinished[:20],
        'bad_5xx_detail': bad[:20],
    }
