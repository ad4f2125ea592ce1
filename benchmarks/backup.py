"""Backup driver throughput: a full backup, an incremental (1 MiB changed) and a restore of
the chain, for a generated volume, to posix and to a real Swift, per compression algorithm.

    .venv/bin/python benchmarks/backup.py --size-mib 1024 --drivers posix,swift \
        --algorithms none,zlib,bz2,zstd

`--object-mib N` sets the object size of both drivers (backup_file_size and
backup_swift_object_size); `--service` also backs the volume up through the four daemons
(benchmarks/backup_service.py: API → scheduler → backup daemon, with its peak RSS).

Each (driver, algorithm) runs in a process of its own, so its peak RSS is its own. The
volume is 4 MiB runs of random bytes, zeros and text, in the ratio 1:1:2. The restore is
checked by sha256 (not timed). Prints one JSON line: MB/s (10^6 bytes) and CPU seconds per
operation, bytes stored by the incremental, peak RSS, and the load average around the run
(the machine is shared: other suites run beside it).
"""

import argparse
import datetime
import hashlib
import json
import os
import pathlib
import resource
import subprocess
import sys
import tempfile
import time
import uuid

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cinderlike import conf as cl_conf  # noqa: E402
from cinderlike.drivers.backup import base, posix  # noqa: E402
from cinderlike.drivers.backup import swift as swift_driver  # noqa: E402

MiB = 1024 * 1024
RUN = 4 * MiB
CHANGED = MiB


def make_volume(path: pathlib.Path, size: int) -> None:
    words = b'lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod '
    text = (words * (RUN // len(words) + 1))[:RUN]
    with open(path, 'wb') as out:
        for index in range(size // RUN):
            kind = index % 4
            out.write(os.urandom(RUN) if kind == 0 else bytes(RUN) if kind == 1 else text)


class _Volume:
    """The volume file as the manager hands it over: a file with its size."""

    def __init__(self, path, mode='rb'):
        self.file = open(path, mode)  # noqa: SIM115 - closed by the caller
        self.size = os.path.getsize(path)

    def __getattr__(self, name):
        return getattr(self.file, name)


def _sha256(path) -> str:
    digest = hashlib.sha256()
    with open(path, 'rb') as f:
        while chunk := f.read(8 * MiB):
            digest.update(chunk)
    return digest.hexdigest()


def _driver(kind: str, algorithm: str, work: pathlib.Path, swift_auth: str | None,
            object_bytes: int | None = None):
    conf = cl_conf.new_conf()
    conf.register_opts(posix.DRIVER_OPTS + swift_driver.DRIVER_OPTS)
    conf([])
    conf.set_override('backup_compression_algorithm', algorithm)
    if object_bytes:
        conf.set_override('backup_file_size', object_bytes)
        conf.set_override('backup_swift_object_size', object_bytes)
    if kind == 'posix':
        conf.set_override('backup_posix_path', str(work / 'backup'))
        return posix.PosixBackupDriver(conf)
    for name, value in (('backup_swift_auth', 'single_user'),
                        ('backup_swift_auth_url', swift_auth),
                        ('backup_swift_user', 'test:tester'), ('backup_swift_key', 'testing'),
                        ('backup_swift_container', f'bench-{uuid.uuid4().hex[:8]}')):
        conf.set_override(name, value)
    return swift_driver.SwiftBackupDriver(conf)


def _stored_bytes(driver, backup) -> int:
    """Bytes of the backup's data objects (not its two JSON objects) in the store."""
    names = [n for n in driver.list_objects(backup.container, backup.service_metadata)
             if not n.endswith(('_metadata', '_sha256file'))]
    if isinstance(driver, posix.PosixBackupDriver):
        return sum(os.path.getsize(os.path.join(driver.root, backup.container, n))
                   for n in names)
    return sum(int(driver.conn.head_object(backup.container, n)['content-length'])
               for n in names)


def _timed(call):
    wall, cpu = time.perf_counter(), time.process_time()
    result = call()
    return result, time.perf_counter() - wall, time.process_time() - cpu


def run_case(kind, algorithm, volume_path, work, swift_auth, object_bytes=None) -> dict:
    """One driver and algorithm: full, incremental, restore; in this (child) process."""
    driver = _driver(kind, algorithm, work, swift_auth, object_bytes)
    driver.check_for_setup_error()
    size = os.path.getsize(volume_path)
    created = datetime.datetime.now(datetime.UTC).replace(tzinfo=None)
    full = base.BackupRef(id=str(uuid.uuid4()), volume_id=str(uuid.uuid4()),
                          availability_zone='nova', container=None, service_metadata=None,
                          size=-(-size // 1024 ** 3), created_at=created)
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    volume = _Volume(volume_path)
    updates, full_s, full_cpu = _timed(lambda: driver.backup(full, volume))
    volume.close()
    full = base.BackupRef(**{**full.__dict__, 'container': updates['container'],
                             'service_metadata': updates['service_metadata']})

    with open(volume_path, 'r+b') as f:
        f.seek(size // 2 + 12345)
        f.write(os.urandom(CHANGED))
    inc = base.BackupRef(id=str(uuid.uuid4()), volume_id=full.volume_id,
                         availability_zone='nova', container=None, service_metadata=None,
                         size=full.size, created_at=created, parent=full)
    volume = _Volume(volume_path)
    inc_updates, inc_s, inc_cpu = _timed(lambda: driver.backup(inc, volume))
    volume.close()
    inc = base.BackupRef(**{**inc.__dict__, 'container': inc_updates['container'],
                            'service_metadata': inc_updates['service_metadata']})
    stored = _stored_bytes(driver, inc)

    target = work / f'restore-{kind}-{algorithm}.img'
    with open(target, 'wb') as f:
        f.truncate(size)
    out = _Volume(target, 'r+b')
    _, restore_s, restore_cpu = _timed(
        lambda: driver.restore(inc, 'restored', out, volume_is_new=True))
    out.close()
    intact = _sha256(target) == _sha256(volume_path)
    target.unlink()
    driver.delete_backup(inc)
    driver.delete_backup(full)
    mb = size / 1e6
    return {'driver': kind, 'algorithm': algorithm,
            'full_MBps': round(mb / full_s, 1), 'full_cpu_s': round(full_cpu, 2),
            'incremental_MBps': round(mb / inc_s, 1), 'incremental_cpu_s': round(inc_cpu, 2),
            'incremental_stored_bytes': stored,
            'restore_MBps': round(mb / restore_s, 1), 'restore_cpu_s': round(restore_cpu, 2),
            'restore_sha256_ok': intact, 'objects_full': updates['object_count'],
            'rss_before_MiB': round(rss_before / 1024, 1),
            'peak_rss_MiB': round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}


def _child(args) -> int:
    kind, algorithm = args.case.split(':')
    result = run_case(kind, algorithm, pathlib.Path(args.volume), pathlib.Path(args.work),
                      args.swift_auth, args.object_bytes)
    print(json.dumps(result))
    return 0


def _service_runs(args, work: pathlib.Path) -> list[dict]:
    from benchmarks import backup_service

    results = []
    for algorithm in args.algorithms.split(','):
        volume = work / 'volume.img'
        make_volume(volume, args.size_mib * MiB)
        case = work / f'service-{algorithm}'
        case.mkdir()
        results.append(backup_service.run(
            volume_path=volume, size_gib=-(-args.size_mib // 1024), algorithm=algorithm,
            work=case, db_url=os.environ['CINDERLIKE_TEST_POSTGRESQL_URL'],
            rabbit_url=os.environ['CINDERLIKE_TEST_RABBIT_URL']))
        print(json.dumps(results[-1]), file=sys.stderr, flush=True)
    return results


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--size-mib', type=int, default=1024)
    parser.add_argument('--drivers', default='posix,swift')
    parser.add_argument('--algorithms', default='zstd,none,zlib,bz2')
    parser.add_argument('--workdir', help='directory for the volume and posix backups')
    parser.add_argument('--object-mib', type=int,
                        help='backup_file_size and backup_swift_object_size (MiB); the '
                             "drivers' defaults when unset")
    parser.add_argument('--service', action='store_true',
                        help='also back up through the four daemons (PostgreSQL and '
                             'RabbitMQ of CINDERLIKE_TEST_POSTGRESQL_URL and '
                             'CINDERLIKE_TEST_RABBIT_URL; posix, each algorithm)')
    parser.add_argument('--case', help=argparse.SUPPRESS)
    parser.add_argument('--volume', help=argparse.SUPPRESS)
    parser.add_argument('--work', help=argparse.SUPPRESS)
    parser.add_argument('--swift-auth', help=argparse.SUPPRESS)
    parser.add_argument('--object-bytes', type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.case:
        return _child(args)

    from tests.fixtures import swift as swift_fixtures

    drivers = args.drivers.split(',')
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(dir=args.workdir) as tmp:
        work = pathlib.Path(tmp)
        server = None
        if 'swift' in drivers:
            server = swift_fixtures.Swift(work / 'swift')
            server.start()
        try:
            results = []
            for kind in drivers:
                for algorithm in args.algorithms.split(','):
                    volume = work / 'volume.img'
                    make_volume(volume, args.size_mib * MiB)
                    child = subprocess.run(
                        [sys.executable, __file__, '--case', f'{kind}:{algorithm}',
                         '--volume', str(volume), '--work', str(work),
                         '--swift-auth', server.auth_url if server else '',
                         *(['--object-bytes', str(args.object_mib * MiB)]
                           if args.object_mib else [])],
                        capture_output=True, text=True, check=True)
                    results.append(json.loads(child.stdout.strip().splitlines()[-1]))
                    # Progress on stderr: a long run (bz2) shows what is done so far.
                    print(json.dumps(results[-1]), file=sys.stderr, flush=True)
            if args.service:
                results += _service_runs(args, work)
        finally:
            if server is not None:
                server.stop()
    print(json.dumps({'benchmark': 'backup', 'size_MiB': args.size_mib,
                      'object_MiB': args.object_mib,
                      'volume': '4 MiB runs random:zeros:text 1:1:2',
                      'changed_MiB': CHANGED // MiB, 'cpus': os.cpu_count(),
                      'loadavg_before': [round(x, 1) for x in load_before],
                      'loadavg_after': [round(x, 1) for x in os.getloadavg()],
                      'results': results}))
    return 0


if __name__ == '__main__':
    sys.exit(main())
