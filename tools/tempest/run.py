"""OpenStack's own conformance tests against cinderlike: tempest's `tempest.api.volume` and
cinder-tempest-plugin's `cinder_tempest_plugin.api.volume`, from PyPI and unmodified.

Starts a Keystone (tests/fixtures/keystone.py) and the four daemons on a fresh PostgreSQL or
MariaDB database and RabbitMQ (tests/functional/e2e/stack.py, the file driver on two
backends and posix backups, `auth_strategy = keystone`), writes tempest.conf from
tempest.conf.in, runs `tempest run` without the tests listed in exclude.txt, and prints the
pass/fail/skip counts. Exits non-zero
when a test that is not excluded fails. Run with cinderlike's venv python (`make tempest`).
"""

import argparse
import contextlib
import functools
import os
import pathlib
import re
import string
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))

from tests.fixtures import keystone as keystone_fixture  # noqa: E402
from tests.fixtures.database import fresh_database  # noqa: E402

VENV = ROOT / '.venv-tempest'
SELECTION = r'^(tempest\.api\.volume|cinder_tempest_plugin\.api\.volume)\.'
BACKENDS = ('b1', 'b2')
# what `tempest run` prints at its end: " - Passed: 52"
_TOTAL_RE = re.compile(r'^ - (Passed|Skipped|Failed|Expected Fail|Unexpected Success): (\d+)$',
                       re.M)


def _file_backends(workdir: pathlib.Path, stack) -> None:
    """Both backends on the file driver (local connections), so that cinder-backup can read
    and write their volumes and tempest's backup tests run; backups to posix."""
    for backend in BACKENDS:
        stack.update_config(backend, volume_driver='file', target_helper='fake',
                            file_volume_directory=workdir / 'volumes' / backend)
    stack.update_config(backup_posix_path=workdir / 'backups')


def _ensure_venv() -> pathlib.Path:
    subprocess.run([sys.executable, str(ROOT / 'tools' / 'service_venv.py'), str(VENV),
                    str(HERE / 'requirements.txt')], check=True)
    return VENV / 'bin'


def _write_config(workspace: pathlib.Path, keystone) -> None:
    template = string.Template((HERE / 'tempest.conf.in').read_text())
    (workspace / 'etc' / 'tempest.conf').write_text(template.substitute(
        log_file=workspace / 'tempest.log', admin_password=keystone_fixture.ADMIN_PASSWORD,
        auth_url=keystone.auth_url, region=keystone_fixture.REGION,
        backend_names=','.join(BACKENDS)))


def _run_tempest(bin_dir: pathlib.Path, workspace: pathlib.Path, *, concurrency: int,
                 regex: str) -> tuple[int, str]:
    """`tempest run` in *workspace*, its output streamed and returned."""
    command = [str(bin_dir / 'tempest'), 'run', '--regex', regex,
               '--exclude-list', str(HERE / 'exclude.txt'), '--concurrency', str(concurrency)]
    # NOTE(path): tempest starts stestr workers by name; they must be the tempest venv's.
    env = dict(os.environ, PATH=f'{bin_dir}{os.pathsep}{os.environ["PATH"]}')
    env.pop('PYTHONPATH', None)
    proc = subprocess.Popen(command, cwd=workspace, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    output = []
    for line in proc.stdout:
        output.append(line)
        sys.stdout.write(line)
    return proc.wait(), ''.join(output)


def _failing(bin_dir: pathlib.Path, workspace: pathlib.Path) -> list[str]:
    done = subprocess.run([str(bin_dir / 'stestr'), 'failing', '--list'], cwd=workspace,
                          capture_output=True, text=True)
    return sorted(line.split('[')[0] for line in done.stdout.splitlines() if line.strip())


def run(args) -> int:
    bin_dir = _ensure_venv()
    workdir = pathlib.Path(tempfile.mkdtemp(prefix='cl-tempest-', dir=args.workdir))
    workspace = workdir / 'tempest'
    # NOTE(workspace): tempest registers workspaces by name in ~/.tempest unless told where.
    subprocess.run([str(bin_dir / 'tempest'), 'init', '--name', workdir.name,
                    '--workspace-path', str(workdir / 'workspaces.yaml'), str(workspace)],
                   check=True, capture_output=True)
    started = time.monotonic()
    # NOTE(sqlite): Keystone on SQLite answers 500 "database is locked" under tempest's
    # parallel logins (each one writes last_active_at), hence a MariaDB database of its own.
    with (fresh_database(args.keystone_database) if args.keystone_database
          else contextlib.nullcontext()) as keystone_db, keystone_fixture.deployed_with_keystone(
            workdir, server_url=args.database, transport_url=args.transport, backends=BACKENDS,
            configure=functools.partial(_file_backends, workdir),
            keystone_options={'threads': args.keystone_threads, 'db_url': keystone_db}) as stack:
        print(f'tempest: Keystone at {stack.keystone.auth_url}, cinderlike at '
              f'{stack.api_url} (logs in {workdir})', flush=True)
        _write_config(workspace, stack.keystone)
        code, output = _run_tempest(bin_dir, workspace, concurrency=args.concurrency,
                                    regex=args.regex)
        failing = _failing(bin_dir, workspace) if code else []
    totals = {name: int(count) for name, count in _TOTAL_RE.findall(output)}
    for test in failing:
        print(f'tempest: FAILED {test}')
    print(f'tempest: the run took {time.monotonic() - started:.0f} s; logs in {workdir}')
    passed, failed = totals.get('Passed', 0), totals.get('Failed', 0)
    if not totals or passed == 0:
        print('tempest: FAIL: no test ran (see the output above)')
        return 1
    print(f'tempest: {passed} passed, {failed} failed, {totals.get("Skipped", 0)} skipped')
    return 1 if code or failed else 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--database', default=os.environ.get('CINDERLIKE_TEST_POSTGRESQL_URL'),
                        help='server URL a fresh database is made on (PostgreSQL or MariaDB; '
                             'default $CINDERLIKE_TEST_POSTGRESQL_URL)')
    parser.add_argument('--transport', default=os.environ.get('CINDERLIKE_TEST_RABBIT_URL'),
                        help='RabbitMQ transport_url (default $CINDERLIKE_TEST_RABBIT_URL)')
    parser.add_argument('--keystone-database',
                        default=os.environ.get('CINDERLIKE_TEST_MYSQL_URL'),
                        help="MariaDB server URL for Keystone's database (default "
                             '$CINDERLIKE_TEST_MYSQL_URL; SQLite when empty, for one worker)')
    parser.add_argument('--concurrency', type=int, default=6,
                        help='tempest workers (most of their time is waiting on volumes)')
    parser.add_argument('--keystone-threads', type=int, default=8)
    parser.add_argument('--regex', default=SELECTION, help='tests to run')
    parser.add_argument('--workdir', default=None, help='where the run directory is made')
    args = parser.parse_args(argv)
    if not args.database or not args.transport:
        parser.error('a database server and a RabbitMQ are needed (--database, --transport)')
    return run(args)


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
