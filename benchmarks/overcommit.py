"""Over-commit under concurrent creates (bug 1553731): N schedulers, one pool, 30 creates at once.

    .venv/bin/python benchmarks/overcommit.py [--db-url postgresql+psycopg2://...]
        [--transport-url rabbit://...] [--schedulers 1,2,3,5] [--provisioning thick,thin]
        [--repetitions 5] [--creates 30] [--size 10]

For each provisioning and scheduler count it starts that many cinderlike-scheduler processes,
one cinderlike-volume with the fake driver (one 100 GB pool that accepts whatever it is sent;
thin with max_over_subscription_ratio 2.0) and cinderlike-api, on RabbitMQ and a fresh
PostgreSQL database. Per repetition it waits until the pool is reported empty, releases the
creates together from threads behind a barrier through the REST API, waits until every
volume is available or error, prints one JSON line and deletes the volumes. Exits 1 when any
run places more or fewer than the pool holds, when an error volume lacks the
no-valid-backend user message, or when the capacity check finds drift. Real Cinder 29 gives
10/20/30 available with 1/2/3 schedulers (thick).
"""

import argparse
import json
import os
import pathlib
import shutil
import sys
import tempfile
import time

# NOTE(path): run as a script, the project root (for tests.*) is not on sys.path.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from tests.fixtures.database import fresh_database  # noqa: E402
from tests.functional.e2e import capacity  # noqa: E402

DEFAULT_DB = 'postgresql+psycopg2://postgres@127.0.0.1:5432/test'
DEFAULT_RABBIT = 'rabbit://guest:guest@127.0.0.1:5672/'


def _repetition(stack, args, provisioning, schedulers) -> dict:
    # every repetition starts from an empty pool, as reported to every scheduler
    capacity.wait_pool_empty(stack, total_gb=capacity.TOTAL_GB, schedulers=schedulers)
    started = time.monotonic()
    ids = capacity.burst(stack, args.creates, args.size)
    settled = capacity.wait_terminal(stack, ids)
    seconds = time.monotonic() - started
    result = dict({'schedulers': schedulers, 'provisioning': provisioning},
                  **capacity.outcome(stack, settled))
    result['expected'] = capacity.expected_count(provisioning=provisioning, size_gb=args.size)
    result['seconds'] = round(seconds, 2)
    capacity.delete(stack, ids)
    return result


def _correct(result, creates) -> bool:
    expected = result['expected']
    return (result['available'] == expected and result['error'] == creates - expected and
            result['error_no_valid_backend'] == result['error'] and
            result['claimed_gb'] == result['promised_gb'])


def run_stack(args, db_server, provisioning, schedulers) -> bool:
    """All repetitions on one stack; True when every one was correct and nothing drifted.

    The daemons' logs are kept (and their directory printed) when a run is not correct.
    """
    ok = False
    workdir = pathlib.Path(tempfile.mkdtemp(prefix=f'overcommit-{provisioning}-{schedulers}-'))
    try:
        with fresh_database(db_server) as db_url:
            stack = capacity.pool_stack(workdir, db_url=db_url,
                                        transport_url=args.transport_url,
                                        provisioning=provisioning)
            try:
                capacity.start(stack, schedulers)
                ok = all([_run_repetition(stack, args, provisioning, schedulers, repetition)
                          for repetition in range(1, args.repetitions + 1)])
                stack.capacity_check()
            finally:
                stack.close()
    finally:
        if ok:
            shutil.rmtree(workdir, ignore_errors=True)
        else:
            print(f'logs of the failed run: {workdir}', file=sys.stderr, flush=True)
    return ok


def _run_repetition(stack, args, provisioning, schedulers, repetition) -> bool:
    result = _repetition(stack, args, provisioning, schedulers)
    result['repetition'] = repetition
    result['correct'] = _correct(result, args.creates)
    print(json.dumps(result), flush=True)
    return result['correct']


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--db-url', default=os.environ.get(
        'CINDERLIKE_TEST_POSTGRESQL_URL', DEFAULT_DB),
        help='a database server; each stack gets a fresh database on it')
    parser.add_argument('--transport-url', default=os.environ.get(
        'CINDERLIKE_TEST_RABBIT_URL', DEFAULT_RABBIT))
    parser.add_argument('--schedulers', default='1,2,3,5')
    parser.add_argument('--provisioning', default='thick,thin')
    parser.add_argument('--repetitions', type=int, default=5)
    parser.add_argument('--creates', type=int, default=30)
    parser.add_argument('--size', type=int, default=10)
    args = parser.parse_args()
    ok = True
    for provisioning in args.provisioning.split(','):
        for schedulers in (int(n) for n in args.schedulers.split(',')):
            try:
                ok = run_stack(args, args.db_url, provisioning, schedulers) and ok
            except Exception as exc:  # reported; the other configurations still run
                print(f'{provisioning} with {schedulers} schedulers failed: {exc!r}',
                      file=sys.stderr, flush=True)
                ok = False
    sys.exit(0 if ok else 1)


if __name__ == '__main__':
    main()
