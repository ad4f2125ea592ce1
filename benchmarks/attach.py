"""Attachments through the REST API and data over iSCSI; print one JSON line of the results.

    .venv/bin/python benchmarks/attach.py --deploy postgresql [-n 400] [-c 8] [--gib 1]

It starts the four daemons (benchmarks/deployment.py) with two backends: `b1` on the fake
driver and `b2` a file backend exported by a tgtd the script starts (cinderlike/cmd/tgtd.py),
each reached through a volume type of its own, then measures:

- attach + detach cycles per second on the fake backend, the API and RPC path alone: C
  clients, each with a volume of its own, run N cycles in all of `POST /attachments` with a
  connector (the volume service's `attachment_update`: initialize_connection), `os-complete`
  and `DELETE /attachments/{id}` (`attachment_delete`), at 3.54;
- MB/s written and read over iSCSI to a GiB-sized file volume: attached through the API,
  `qemu-img convert -n` writes a random file to the `iscsi://user%password@portal/iqn/1` URL
  of the returned connection info, then reads it back into another file; the sha256 of the
  two must match.
"""

import argparse
import hashlib
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
import uuid

import deployment  # benchmarks/deployment.py, beside this script (it puts the root on sys.path)
import volumes  # benchmarks/volumes.py: the noauth client, percentiles, parallel clients

from cinderlike.cmd import tgtd as tgtd_cmd  # noqa: E402 (after deployment's sys.path)

MV = '3.54'
MiB = 1024 ** 2
CONNECTOR = {'initiator': 'iqn.1994-05.com.example:bench', 'ip': '127.0.0.1',
             'host': 'bench', 'multipath': False, 'platform': 'x86_64', 'os_type': 'linux2',
             'do_local_attach': False}
FAKE_TYPE, ISCSI_TYPE = 'bench-fake', 'bench-iscsi'
SETTLE = 120  # seconds for a volume to become available


class Client(volumes.Client):
    """The volumes benchmark's client at the attachments microversion."""

    def __init__(self, url: str, project: str):
        super().__init__(url, project)
        self._headers['OpenStack-API-Version'] = f'volume {MV}'


def _available(client: Client, volume_id: str) -> None:
    deadline = time.perf_counter() + SETTLE
    while True:
        status = client.call('GET', f'/volumes/{volume_id}', expect=200)['volume']['status']
        if status == 'available':
            return
        if status == 'error' or time.perf_counter() > deadline:
            raise RuntimeError(f'volume {volume_id} is {status}')
        time.sleep(volumes.POLL)


def _volume(client: Client, volume_type: str, size: int) -> str:
    volume_id = client.call('POST', '/volumes', {'volume': {
        'size': size, 'volume_type': volume_type}}, expect=202)['volume']['id']
    _available(client, volume_id)
    return volume_id


def _attach(client: Client, volume_id: str) -> tuple[str, dict]:
    attachment = client.call('POST', '/attachments', {'attachment': {
        'volume_uuid': volume_id, 'instance_uuid': str(uuid.uuid4()),
        'connector': CONNECTOR, 'mode': 'rw'}}, expect=200)['attachment']
    client.call('POST', f'/attachments/{attachment["id"]}/action', {'os-complete': None},
                expect=204)
    return attachment['id'], attachment['connection_info']


def _detach(client: Client, attachment_id: str) -> None:
    client.call('DELETE', f'/attachments/{attachment_id}', expect=200)


def attach_cycles(url: str, project: str, *, count: int, concurrency: int) -> dict:
    """N attach + detach cycles by C clients on fake volumes (one per client)."""
    clients = [Client(url, project) for _ in range(concurrency)]
    try:
        owned = {id(c): _volume(c, FAKE_TYPE, 1) for c in clients}
        attaches, detaches = [], []

        def cycle(client, _):
            began = time.perf_counter()
            attachment_id, _info = _attach(client, owned[id(client)])
            attached = time.perf_counter()
            _detach(client, attachment_id)
            attaches.append(attached - began)
            detaches.append(time.perf_counter() - attached)

        start = time.perf_counter()
        volumes._in_parallel(clients, list(range(count)), cycle)
        elapsed = time.perf_counter() - start
        for client in clients:
            client.call('DELETE', f'/volumes/{owned[id(client)]}', expect=202)
    finally:
        for client in clients:
            client.close()
    return {'cycles': count, 'concurrency': concurrency,
            'cycles_per_s': round(count / elapsed, 1),
            'attach_p50_ms': volumes.percentile(attaches, 50),
            'attach_p95_ms': volumes.percentile(attaches, 95),
            'detach_p50_ms': volumes.percentile(detaches, 50),
            'detach_p95_ms': volumes.percentile(detaches, 95)}


def _url(info: dict) -> str:
    auth = (f'{urllib.parse.quote(info["auth_username"])}%'
            f'{urllib.parse.quote(info["auth_password"])}@')
    return f'iscsi://{auth}{info["target_portal"]}/{info["target_iqn"]}/{info["target_lun"]}'


def _sha256(path: pathlib.Path) -> str:
    digest = hashlib.sha256()
    with path.open('rb') as data:
        while chunk := data.read(4 * MiB):
            digest.update(chunk)
    return digest.hexdigest()


def _timed(*command: str) -> float:
    began = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    return time.perf_counter() - began


def iscsi_throughput(url: str, project: str, workdir: pathlib.Path, *, gib: int) -> dict:
    """Write then read a GiB-sized random pattern through the attachment's iSCSI URL."""
    client = Client(url, project)
    source, back = workdir / 'pattern', workdir / 'read-back'
    try:
        with source.open('wb') as out:
            for _ in range(gib * 1024):
                out.write(os.urandom(MiB))
        volume_id = _volume(client, ISCSI_TYPE, gib)
        attachment_id, info = _attach(client, volume_id)
        target = _url(info)
        wrote = _timed('qemu-img', 'convert', '-n', '-f', 'raw', '-O', 'raw', str(source),
                       target)
        read = _timed('qemu-img', 'convert', '-f', 'raw', '-O', 'raw', target, str(back))
        if _sha256(source) != _sha256(back):
            raise RuntimeError('the bytes read back over iSCSI differ from those written')
        _detach(client, attachment_id)
        client.call('DELETE', f'/volumes/{volume_id}', expect=202)
    finally:
        client.close()
        for path in (source, back):
            path.unlink(missing_ok=True)
    megabytes = gib * 1024
    return {'iscsi_gib': gib, 'iscsi_write_mb_per_s': round(megabytes / wrote, 1),
            'iscsi_read_mb_per_s': round(megabytes / read, 1), 'iscsi_sha256_equal': True}


def _setup(stack_url: str, project: str) -> None:
    """The run's project without quota limits, and one type per backend."""
    admin = Client(stack_url, project)
    try:
        admin.call('PUT', f'/os-quota-sets/{project}',
                   {'quota_set': {'volumes': -1, 'gigabytes': -1}}, expect=200)
        for name, backend in ((FAKE_TYPE, 'b1'), (ISCSI_TYPE, 'b2')):
            admin.call('POST', '/types', {'volume_type': {
                'name': name, 'extra_specs': {'volume_backend_name': backend}}}, expect=200)
    finally:
        admin.close()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--deploy', choices=('postgresql', 'mysql'), default='postgresql')
    parser.add_argument('-n', '--cycles', type=int, default=400)
    parser.add_argument('-c', '--concurrency', type=int, default=8)
    parser.add_argument('--gib', type=int, default=1, help='size of the iSCSI volume')
    parser.add_argument('--api-workers', type=int, default=2)
    parser.add_argument('--keep-logs', action='store_true')
    args = parser.parse_args(argv)
    deployment.stop_on_sigterm()
    workdir = pathlib.Path(tempfile.mkdtemp(prefix='cl-bench-attach-'))
    tgtd = tgtd_cmd.Tgtd(str(workdir / 'tgtd.log'))
    tgtd.start()
    try:
        iscsi = {'volume_driver': 'file', 'target_helper': 'tgtadm',
                 'target_ip_address': tgtd_cmd.LISTEN_HOST, 'target_port': tgtd.portal_port,
                 'tgt_control_port': tgtd.control_port, 'volumes_dir': workdir / 'targets',
                 'file_volume_directory': workdir / 'volumes'}
        with deployment.deployed(db=args.deploy, backends=2, api_workers=args.api_workers,
                                 options={'b2': iscsi}, keep_logs=args.keep_logs) as stack:
            url = f'http://127.0.0.1:{stack.api_port}'
            project = f'bench-{uuid.uuid4().hex[:12]}'
            _setup(url, project)
            result = attach_cycles(url, project, count=args.cycles,
                                   concurrency=args.concurrency)
            result.update(iscsi_throughput(url, project, workdir, gib=args.gib))
    finally:
        try:
            tgtd.stop()
        finally:
            tgtd.kill()
            shutil.rmtree(workdir, ignore_errors=True)
    result['database'] = args.deploy
    json.dump(result, sys.stdout)
    print()


if __name__ == '__main__':
    sys.exit(main())
