"""Active-Active failover: kill -9 of a cluster member holding slow creates and deletes.

    .venv/bin/python benchmarks/failover.py [--db-url postgresql+psycopg2://...]
        [--transport-url rabbit://...] [--redis-url redis://...] [--creates 8]
        [--deletes 8] [--create-latency 5] [--delete-latency 2] [--report-interval 1]
        [--service-down-time 4]

Starts cinderlike-scheduler, two cinderlike-volume members of one cluster for one `file`
backend on a shared directory (the driver waits --create-latency before each create and
--delete-latency before each delete), cinderlike-api, RabbitMQ (its own vhost), a fresh
PostgreSQL database and tooz on Redis. It creates --creates volumes and deletes --deletes
available ones at once, kills one member
with kill -9 while it holds both kinds, and waits, without any API call, until its peer has
settled them all. Prints one JSON line: failover seconds (kill to last row settled), volumes
left in a transitional status, workers rows left, quota drift, pool claim drift, and the
bound 2 × service_down_time + report_interval. Exits 1 unless left, rows, drifts are 0 and
the failover time is within the bound.
"""

import argparse
import json
import os
import pathlib
import sys
import tempfile

# NOTE(path): run as a script, the project root (for tests.*) is not on sys.path.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from tests.fixtures.database import fresh_database  # noqa: E402
from tests.functional.e2e import failover  # noqa: E402
from tests.functional.e2e.stack import wait_for  # noqa: E402

DEFAULT_DB = 'postgresql+psycopg2://postgres@127.0.0.1:5432/test'
DEFAULT_RABBIT = 'rabbit://guest:guest@127.0.0.1:5672/'
DEFAULT_REDIS = 'redis://127.0.0.1:6379'


def run(args, db_url, workdir) -> dict:
    stack = failover.cluster_stack(
        workdir, db_url=db_url, transport_url=args.transport_url, redis_url=args.redis_url,
        create_latency=args.create_latency, delete_latency=args.delete_latency,
        report_interval=args.report_interval,
        service_down_time=args.service_down_time)
    db = failover.Database(db_url)
    try:
        failover.start(stack)
        victim = db.service_id(failover.member_host(stack, 'volume-a'))
        failover.load(stack, db, creates=args.creates, deletes=args.deletes, victim_id=victim)
        settled, seconds = failover.kill_and_time(stack, db, 'volume-a')
        # the survivor's own work ends as well; then nothing may be left
        wait_for(lambda: db.transitional() == 0 and db.workers() == 0,
                 timeout=failover.SETTLE, what='every volume to settle')
        return {
            'failover_seconds': round(seconds, 2),
            'taken_over': len(settled),
            'transitional_left': db.transitional(),
            'workers_left': db.workers(),
            'quota_drift': db.quota_drift(),
            'claim_drift_gb': db.claim_drift(),
            'bound_seconds': 2 * args.service_down_time + args.report_interval,
        }
    finally:
        stack.close()
        db.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--db-url', default=os.environ.get(
        'CINDERLIKE_TEST_POSTGRESQL_URL', DEFAULT_DB),
        help='a PostgreSQL server; the run gets a fresh database on it')
    parser.add_argument('--transport-url', default=os.environ.get(
        'CINDERLIKE_TEST_RABBIT_URL', DEFAULT_RABBIT))
    parser.add_argument('--redis-url', default=os.environ.get(
        'CINDERLIKE_TEST_REDIS_URL', DEFAULT_REDIS))
    parser.add_argument('--creates', type=int, default=8)
    parser.add_argument('--deletes', type=int, default=8)
    parser.add_argument('--create-latency', type=float, default=5.0,
                        help='seconds each driver create waits')
    parser.add_argument('--delete-latency', type=float, default=2.0,
                        help='seconds each driver delete waits')
    parser.add_argument('--report-interval', type=int, default=1)
    parser.add_argument('--service-down-time', type=int, default=4)
    args = parser.parse_args()
    with fresh_database(args.db_url) as db_url, tempfile.TemporaryDirectory() as workdir:
        result = run(args, db_url, pathlib.Path(workdir))
    print(json.dumps(result), flush=True)
    ok = (result['transitional_left'] == 0 and result['workers_left'] == 0
          and result['quota_drift'] == 0 and result['claim_drift_gb'] == 0
          and result['failover_seconds'] <= result['bound_seconds'])
    sys.exit(0 if ok else 1)


if __name__ == '__main__':
    main()
