"""What the in-process benchmarks share: the servers they run on, a statement counter and
the per-item figures (CPU, statements and commits, Python calls under cProfile) and the command
line."""

import argparse
import cProfile
import json
import os
import pstats
import sys
import time

from sqlalchemy import event

SERVER_URLS = {
    'postgresql': ('CINDERLIKE_TEST_POSTGRESQL_URL',
                   'postgresql+psycopg2://postgres@127.0.0.1:5432/test'),
    'mysql': ('CINDERLIKE_TEST_MYSQL_URL', 'mysql+pymysql://root@127.0.0.1:3306/test'),
}


class Counter:
    """Statements and commits the engine runs."""

    def __init__(self, eng):
        self.statements = self.commits = 0
        event.listen(eng, 'before_cursor_execute', self._statement)
        event.listen(eng, 'commit', self._commit)

    def _statement(self, *_args):
        self.statements += 1

    def _commit(self, *_args):
        self.commits += 1

    def snapshot(self) -> tuple[int, int]:
        return self.statements, self.commits


def timed(work, items, counter):
    """Figures per item: CPU ms and statements/commits over the first half of *items*, and
    Python function calls (cProfile, which also slows them) over the second; the profile."""
    half = len(items) // 2
    before = counter.snapshot()
    cpu = time.process_time()
    for item in items[:half]:
        work(item)
    spent = time.process_time() - cpu
    after = counter.snapshot()
    profiler = cProfile.Profile()
    profiler.enable()
    for item in items[half:]:
        work(item)
    profiler.disable()
    calls = pstats.Stats(profiler).total_calls
    figures = {'cpu_ms': round(spent * 1000 / half, 2),
               'python_calls': round(calls / (len(items) - half)),
               'statements': round((after[0] - before[0]) / half, 2),
               'commits': round((after[1] - before[1]) / half, 2)}
    return figures, profiler


def print_profiles(profiles: dict, top: int, stream) -> None:
    """The *top* costliest functions (cumulative) of each named profile."""
    for name, prof in profiles.items():
        print(f'--- {name}', file=stream)
        pstats.Stats(prof, stream=stream).sort_stats('cumulative').print_stats(top)


def main(doc: str, run, *, count_flag: str, choices: dict | None = None, argv=None) -> None:
    """The command line of an in-process benchmark: `--db`, `-n/<count_flag>`, `--profile`,
    and `--<name>` for each of *choices* ({name: options, the first the default});
    *run(db_url, count=, profile=, <name>=)* on a fresh database of that server; its JSON
    line."""
    from tests.fixtures.database import fresh_database

    parser = argparse.ArgumentParser(description=doc,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--db', choices=tuple(SERVER_URLS), default='postgresql')
    parser.add_argument('-n', count_flag, dest='count', type=int, default=300)
    parser.add_argument('--profile', type=int, default=0, metavar='K')
    for name, options in (choices or {}).items():
        parser.add_argument(f'--{name}', choices=options, default=options[0])
    args = parser.parse_args(argv)
    chosen = {name: getattr(args, name) for name in choices or {}}
    name, default = SERVER_URLS[args.db]
    with fresh_database(os.environ.get(name) or default) as db_url:
        result = run(db_url, count=args.count, profile=args.profile, **chosen)
    result['database'] = args.db
    json.dump(result, sys.stdout)
    print()
