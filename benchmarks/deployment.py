"""Start the four daemons (API, scheduler, volume, backup) on a fresh database and a RabbitMQ
vhost of their own, with fake-driver backends, for benchmarks; stop and drop them afterwards.

    .venv/bin/python benchmarks/deployment.py [--db postgresql|mysql] [--backends 2]
        [--api-workers 2]   # prints the API URL, runs until Ctrl-C

The daemons are launched by tests/functional/e2e/stack.py (the end-to-end tests' launcher);
server URLs come from the CINDERLIKE_TEST_* variables the tests use.
"""

import argparse
import contextlib
import os
import pathlib
import shutil
import signal
import sys
import tempfile
import time

# NOTE(path): run as a script, the project root (for tests.*) is not on sys.path.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from tests.fixtures.database import fresh_database  # noqa: E402
from tests.functional.e2e.stack import Stack  # noqa: E402

SERVER_URLS = {
    'postgresql': ('CINDERLIKE_TEST_POSTGRESQL_URL',
                   'postgresql+psycopg2://postgres@127.0.0.1:5432/test'),
    'mysql': ('CINDERLIKE_TEST_MYSQL_URL', 'mysql+pymysql://root@127.0.0.1:3306/test'),
}
RABBIT_URL = ('CINDERLIKE_TEST_RABBIT_URL', 'rabbit://guest:guest@127.0.0.1:5672/')


def _env(pair) -> str:
    name, default = pair
    return os.environ.get(name) or default


@contextlib.contextmanager
def deployed(*, db: str = 'postgresql', backends: int = 2, api_workers: int = 2,
             capacity_gb: int = 1_000_000, report_interval: int = 10, options=None,
             keep_logs: bool = False):
    """A running Stack (four daemons, fake backends b1..bN, fresh database); torn down after.

    *options* ({section: {option: value}}) are written to the config before the start;
    with *keep_logs* the work directory (config, daemon logs) stays and is printed.
    """
    workdir = tempfile.mkdtemp(prefix='cl-bench-')
    with fresh_database(_env(SERVER_URLS[db])) as db_url:
        stack = Stack(pathlib.Path(workdir), db_url=db_url, transport_url=_env(RABBIT_URL),
                      backends=[f'b{i}' for i in range(1, backends + 1)],
                      report_interval=report_interval,
                      service_down_time=max(60, 6 * report_interval))
        # NOTE(periodics): the e2e defaults (every second) suit tests that wait for
        # reports; a benchmark keeps Cinder's intervals so periodic work stays background.
        stack.update_config(osapi_volume_workers=api_workers, periodic_interval=60,
                            scheduler_driver_init_wait_time=5)
        # NOTE(connections): PostgreSQL allows 100 connections; six processes with the
        # default pool (5 + 50 overflow each) could ask for 330 under load.
        stack.update_config('database', max_pool_size=5, max_overflow=5)
        for backend in stack.backends:
            stack.update_config(backend, fake_total_capacity_gb=capacity_gb,
                                backend_stats_polling_interval=report_interval)
        for section, values in (options or {}).items():
            stack.update_config(section, **values)
        stack.run('cinderlike-manage', 'db', 'sync')
        try:
            stack.start_all()
            yield stack
        finally:
            stack.close()
            if keep_logs:
                print(f'logs kept in {workdir}', file=sys.stderr)
            else:
                shutil.rmtree(workdir, ignore_errors=True)


def stop_on_sigterm():
    """SIGTERM unwinds like Ctrl-C, so the daemons, database and vhost are cleaned up."""
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--db', choices=sorted(SERVER_URLS), default='postgresql')
    parser.add_argument('--backends', type=int, default=2)
    parser.add_argument('--api-workers', type=int, default=2)
    args = parser.parse_args()
    stop_on_sigterm()
    with deployed(db=args.db, backends=args.backends, api_workers=args.api_workers,
                  keep_logs=True) as stack:
        print(f'API: http://127.0.0.1:{stack.api_port}  config: {stack.config_path}', flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            while True:
                time.sleep(3600)


if __name__ == '__main__':
    main()
