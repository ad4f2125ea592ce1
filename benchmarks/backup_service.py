"""A backup through the service (benchmarks/backup.py --service): the four daemons on
PostgreSQL and RabbitMQ (tests/functional/e2e/stack.py), a `file` backend, posix backups.

The generated volume is written into a volume through its connection info, then POST
/backups is timed until the backup shows `available` (the scheduler's pick, the volume
service's device, the backup daemon's read, hash, compress and write, the status writes and
the API's polling at 0.1 s), and the backup daemon's peak RSS (VmHWM of every process of its
process group) is read before it stops.
"""

import pathlib
import time

from cinderlike import connector
from tests.functional.e2e.stack import PROJECT, deployed, wait_for

MiB = 1024 * 1024
V = f'/v3/{PROJECT}'
BACKEND = 'file'
CONNECTOR = {'initiator': 'iqn.1994-05.com.redhat:bench', 'ip': '127.0.0.1',
             'host': 'benchhost', 'multipath': False, 'platform': 'x86_64',
             'os_type': 'linux2', 'do_local_attach': False}


def _group_peak_rss_mib(pgid: int) -> float:
    """The largest VmHWM (peak RSS) of the processes of process group *pgid*."""
    peak = 0
    for stat in pathlib.Path('/proc').glob('[0-9]*/stat'):
        try:
            fields = stat.read_text().rsplit(')', 1)[1].split()
            if int(fields[2]) != pgid:
                continue
            status = (stat.parent / 'status').read_text()
        except (OSError, IndexError, ValueError):
            continue
        for line in status.splitlines():
            if line.startswith('VmHWM:'):
                peak = max(peak, int(line.split()[1]))
    return round(peak / 1024, 1)


def _settled(stack, kind, item_id, busy):
    def steady():
        status, body = stack.request('GET', f'{V}/{kind}s/{item_id}')
        return body[kind] if status == 200 and body[kind]['status'] not in busy else None
    return wait_for(steady, timeout=900, what=f'{kind} {item_id}')


def run(*, volume_path: pathlib.Path, size_gib: int, algorithm: str, work: pathlib.Path,
        db_url: str, rabbit_url: str) -> dict:
    """One full backup of the generated volume through the API; its figures."""
    def configure(stack):
        stack.update_config(BACKEND, volume_driver='file', target_helper='fake',
                            file_volume_directory=work / 'volumes')
        stack.update_config(backup_driver='posix', backup_posix_path=work / 'backups',
                            backup_compression_algorithm=algorithm)
    with deployed(work, server_url=db_url, transport_url=rabbit_url, backends=(BACKEND,),
                  configure=configure, timeout=180) as stack:
        made = stack.ok('POST', f'{V}/volumes', {'volume': {'size': size_gib}},
                        expect=202)['volume']
        _settled(stack, 'volume', made['id'], ('creating',))
        info = stack.ok('POST', f'{V}/volumes/{made["id"]}/action',
                        {'os-initialize_connection': {'connector': CONNECTOR}},
                        expect=200)['connection_info']
        with open(volume_path, 'rb') as source, \
                connector.open_volume(info, writable=True) as volume:
            while piece := source.read(8 * MiB):
                volume.write(piece)
        rss_idle = _group_peak_rss_mib(stack.daemons['backup'].proc.pid)
        started = time.perf_counter()
        backup = stack.ok('POST', f'{V}/backups', {'backup': {'volume_id': made['id']}},
                          expect=202)['backup']
        shown = _settled(stack, 'backup', backup['id'], ('creating',))
        seconds = time.perf_counter() - started
        peak = _group_peak_rss_mib(stack.daemons['backup'].proc.pid)
        assert shown['status'] == 'available', shown
        stack.ok('DELETE', f'{V}/backups/{backup["id"]}', expect=202)
        wait_for(lambda: stack.request('GET', f'{V}/backups/{backup["id"]}')[0] == 404,
                 timeout=300, what='the backup to be deleted')
    return {'path': 'service (API -> backup daemon)', 'driver': 'posix',
            'algorithm': algorithm, 'full_MBps': round(volume_path.stat().st_size / 1e6
                                                       / seconds, 1),
            'full_s': round(seconds, 2), 'backup_daemon_rss_before_MiB': rss_idle,
            'backup_daemon_peak_rss_MiB': peak}
