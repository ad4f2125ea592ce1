"""Placements per second when a scheduler's threads place at once: claims that queue on pool rows.

    .venv/bin/python benchmarks/placements.py --db postgresql [-n 2000] [--threads 10]

On a fresh database of the server named by CINDERLIKE_TEST_POSTGRESQL_URL (or ..._MYSQL_URL),
N unplaced `creating` volumes of 1 GB are placed by `placements.place_volume` (claim and
placement in one transaction, as the scheduler's create flow runs it) from T threads of one
process, alternating between two pools, so every placement waits for the row of its pool
while the other threads hold the GIL. One JSON line: placements per second. T defaults to
10, the connections of a scheduler's database pool (`max_pool_size` 5 + `max_overflow` 5 as
the benchmark deployments set them).
"""

import argparse
import json
import os
import pathlib
import sys
import threading
import time

# NOTE(path): run as a script, the project root (for tests.*) is not on sys.path.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

import inprocess  # noqa: E402

from cinderlike.db import engine, migration, placements  # noqa: E402
from cinderlike.db import volume_types as db_types  # noqa: E402
from cinderlike.db import volumes as db_volumes  # noqa: E402
from cinderlike.db.models import Pool  # noqa: E402

POOLS = ('bench@b1#b1', 'bench@b2#b2')


def _seed(db, count: int) -> list[str]:
    vtype = db_types.get_by_name(db, name='__DEFAULT__')
    with db.writer() as s:
        s.add_all(Pool(name=name, backend=name.partition('#')[0], allocated_capacity_gb=0,
                       provisioned_capacity_gb=0, capacity_limit_gb=10 * count)
                  for name in POOLS)
    return [db_volumes.create(db, values={
        'project_id': 'bench', 'user_id': 'u1', 'status': 'creating', 'size': 1,
        'volume_type_id': vtype.id, 'attach_status': 'detached',
        'availability_zone': 'nova', 'display_name': f'bench-{i}'}).id for i in range(count)]


def run(db_url: str, *, count: int, threads: int) -> dict:
    migration.upgrade(db_url)
    db = engine.Database(db_url)
    try:
        pending = iter(enumerate(_seed(db, count)))
        lock = threading.Lock()
        outcomes = []

        def place_all():
            while True:
                with lock:
                    item = next(pending, None)
                if item is None:
                    return
                index, volume_id = item
                pool = POOLS[index % 2]
                outcomes.append(placements.place_volume(
                    db, volume_id=volume_id, pool=pool, size_gb=1, host=pool,
                    cluster_name=None))

        workers = [threading.Thread(target=place_all) for _ in range(threads)]
        started = time.perf_counter()
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        seconds = time.perf_counter() - started
    finally:
        db.dispose()
    if outcomes.count(placements.Placed.PLACED) != count:
        raise RuntimeError(f'placed {outcomes.count(placements.Placed.PLACED)} of {count}')
    return {'placements': count, 'threads': threads,
            'placements_per_s': round(count / seconds, 1)}


def main(argv=None) -> None:
    from tests.fixtures.database import fresh_database

    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--db', choices=tuple(inprocess.SERVER_URLS), default='postgresql')
    parser.add_argument('-n', '--placements', dest='count', type=int, default=2000)
    parser.add_argument('--threads', type=int, default=10)
    args = parser.parse_args(argv)
    name, default = inprocess.SERVER_URLS[args.db]
    with fresh_database(os.environ.get(name) or default) as db_url:
        result = run(db_url, count=args.count, threads=args.threads)
    result['database'] = args.db
    json.dump(result, sys.stdout)
    print()


if __name__ == '__main__':
    main()
