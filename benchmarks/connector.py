"""Throughput of the host connector: sequential reads and writes through open_volume.

    .venv/bin/python benchmarks/connector.py [--size-mib 1024] [--block-mib 4]

For a raw and a qcow2 `file` volume opened locally, and a raw one exported as an iSCSI LUN
(CHAP) by a private user-space tgtd (Debian's tgt, qemu-block-extra), it writes the whole
volume in --block-mib writes (the last flush and the detach are timed), drops the image's
pages from the page cache (posix_fadvise DONTNEED on that file only), then reads it all back
in --block-mib reads. Prints one JSON line: MB/s (10^6 bytes per second) per case and way.
"""

import argparse
import dataclasses
import json
import os
import pathlib
import sys
import tempfile
import time
import uuid

# NOTE(path): run as a script, the project root (for tests.*) is not on sys.path.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from cinderlike import connector  # noqa: E402
from cinderlike.conf import volume as volume_conf  # noqa: E402
from cinderlike.drivers.volume import base, file  # noqa: E402
from tests.fixtures import daemons  # noqa: E402
from tests.fixtures import tgt as tgt_fixtures  # noqa: E402

MiB = 1024 ** 2


def _driver(workdir, backend, **options):
    conf = daemons.make_conf(state_path=workdir)
    configuration = volume_conf.register_backend(conf, backend, file.DRIVER_OPTS)
    for name, value in options.items():
        conf.set_override(name, value, group=backend)
    driver = file.FileDriver(configuration, host=f'bench@{backend}')
    driver.do_setup(None)
    driver.check_for_setup_error()
    return driver


def _volume(driver, size_mib):
    volume_id = str(uuid.uuid4())
    # The driver sizes in GiB; the benchmark moves size_mib of it.
    volume = base.VolumeRef(id=volume_id, name_id=volume_id, size=-(-size_mib // 1024))
    return dataclasses.replace(volume, **driver.create_volume(volume))


def _evict(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def _measure(info, path, *, size, block):
    """(write MB/s, read MB/s, whether the bytes read are the bytes written)."""
    chunk = os.urandom(block)
    start = time.perf_counter()
    with connector.open_volume(info, writable=True) as volume:
        for _ in range(size // block):
            volume.write(chunk)
    written = time.perf_counter() - start
    _evict(path)
    same = True
    start = time.perf_counter()
    with connector.open_volume(info, writable=False) as volume:
        for _ in range(size // block):
            # A bytes comparison (memcmp) costs little next to the I/O being timed.
            same = volume.read(block) == chunk and same
    read = time.perf_counter() - start
    return round(size / written / 1e6, 1), round(size / read / 1e6, 1), same


def _case(driver, volume, info, args):
    size, block = args.size_mib * MiB, args.block_mib * MiB
    try:
        write_mbps, read_mbps, same = _measure(info, driver.path(volume), size=size,
                                               block=block)
    finally:
        driver.delete_volume(volume)
    return {'write_mb_s': write_mbps, 'read_mb_s': read_mbps, 'data_ok': same}


def run(args, workdir) -> dict:
    results = {'size_mib': args.size_mib, 'block_mib': args.block_mib}
    for fmt in ('raw', 'qcow2'):
        driver = _driver(workdir, f'local-{fmt}', file_volume_format=fmt)
        volume = _volume(driver, args.size_mib)
        results[f'local_{fmt}'] = _case(driver, volume,
                                        driver.initialize_connection(volume, {}), args)
    tgtd = tgt_fixtures.Tgtd(os.path.join(workdir, 'tgtd.log'))
    tgtd.start()
    try:
        driver = _driver(workdir, 'iscsi', target_helper='tgtadm',
                         target_ip_address='127.0.0.1', target_port=tgtd.portal_port,
                         tgt_control_port=tgtd.control_port)
        volume = _volume(driver, args.size_mib)
        volume = dataclasses.replace(volume, **driver.create_export(volume, None))
        info = driver.initialize_connection(volume, {})
        try:
            results['iscsi_tgt'] = _case(driver, volume, info, args)
        finally:
            driver.remove_export(volume)
    finally:
        try:
            tgtd.stop()
        finally:
            tgtd.kill()
    return results


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--size-mib', type=int, default=1024,
                        help='bytes moved per case, in MiB (a multiple of --block-mib)')
    parser.add_argument('--block-mib', type=int, default=4, help='size of each read and write')
    args = parser.parse_args(argv)
    if args.size_mib % args.block_mib:
        parser.error('--size-mib must be a multiple of --block-mib')
    lacking = tgt_fixtures.missing()
    if lacking:
        parser.error(f'needs {", ".join(lacking)} (apt-get install tgt qemu-utils '
                     'qemu-block-extra libiscsi-bin)')
    with tempfile.TemporaryDirectory(prefix='cinderlike-bench-connector-') as workdir:
        results = run(args, workdir)
    print(json.dumps(results))
    return 0 if all(results[case]['data_ok']
                    for case in ('local_raw', 'local_qcow2', 'iscsi_tgt')) else 1


if __name__ == '__main__':
    sys.exit(main())
