"""Volumes through the REST API: create N with C concurrent clients, wait until all are
available, list them, delete them; print one JSON line of the results.

    .venv/bin/python benchmarks/volumes.py --url http://127.0.0.1:8776 [-n 500] [-c 16]
    .venv/bin/python benchmarks/volumes.py --deploy postgresql [-n 500] [-c 16]

With --url it runs against a deployment that is up (auth_strategy = noauth); with --deploy it
starts the four daemons with fake backends first (benchmarks/deployment.py) and stops them
after. Each run uses a project of its own, so every volume of that project is the run's.
"""

import argparse
import http.client
import json
import sys
import threading
import time
import urllib.parse
import uuid

POLL = 0.05  # seconds between two looks at the counts while waiting
CONCURRENT_LISTS = 4  # GET /volumes/detail per client when C clients list at once


class Meter:
    """CPU seconds and RSS of the deployment's daemons, each with its worker processes."""

    def __init__(self, pids: dict[str, int]):
        import psutil  # NOTE(deps): oslo.utils and os-brick already depend on it
        self._trees = {name: psutil.Process(pid) for name, pid in pids.items()}

    def _processes(self, name):
        root = self._trees[name]
        return [root, *root.children(recursive=True)]

    def cpu(self) -> dict[str, float]:
        """Process CPU seconds (user + system) so far, per daemon."""
        return {name: sum(sum(p.cpu_times()[:2]) for p in self._processes(name))
                for name in self._trees}

    def rss_mb(self) -> dict[str, float]:
        """The largest resident set among each daemon's processes, in MiB."""
        return {name: round(max(p.memory_info().rss for p in self._processes(name)) / 2**20, 1)
                for name in self._trees}


def _spent(before: dict, after: dict, per: int, scale: float = 1000) -> dict:
    return {name: round((after[name] - before[name]) * scale / per, 2) for name in before}


class Client:
    """One keep-alive HTTP connection speaking noauth to the volume API."""

    def __init__(self, url: str, project: str):
        parts = urllib.parse.urlsplit(url)
        self._conn = http.client.HTTPConnection(parts.hostname, parts.port or 80, timeout=120)
        self._prefix = f'/v3/{project}'
        self._headers = {'X-Auth-Token': f'bench:{project}', 'Accept': 'application/json',
                         'Content-Type': 'application/json',
                         'OpenStack-API-Version': 'volume 3.45'}

    def call(self, method: str, path: str, body=None, *, expect: int):
        data = None if body is None else json.dumps(body)
        try:
            response = self._send(method, path, data)
        except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
            # NOTE(keepalive): the server closes idle keep-alive connections; such a close
            # happens before it reads a request, so sending it again is safe.
            self._conn.close()
            response = self._send(method, path, data)
        raw = response.read()
        if response.status != expect:
            raise RuntimeError(f'{method} {path} -> {response.status} {raw[:500]!r}')
        return json.loads(raw) if raw else None

    def _send(self, method, path, data):
        self._conn.request(method, self._prefix + path, body=data, headers=self._headers)
        return self._conn.getresponse()

    def count(self, query: str = '') -> int:
        """How many of the project's volumes match *query* (with_count, 3.45)."""
        sep = '&' if query else ''
        return self.call('GET', f'/volumes?limit=1&with_count=true{sep}{query}',
                         expect=200)['count']

    def close(self):
        self._conn.close()


def percentile(samples: list[float], pct: float) -> float:
    """Nearest-rank percentile of *samples*, in milliseconds (samples are seconds)."""
    ordered = sorted(samples)
    rank = max(0, min(len(ordered) - 1, round(pct / 100 * len(ordered) + 0.5) - 1))
    return round(ordered[rank] * 1000, 1)


def _in_parallel(clients: list[Client], items: list, work) -> list[float]:
    """work(client, item) for every item, one thread per client; the per-item latencies."""
    latencies: list[float] = []
    errors: list[BaseException] = []
    lock = threading.Lock()
    pending = iter(items)

    def worker(client):
        while True:
            with lock:
                item = next(pending, None)
            if item is None or errors:
                return
            start = time.perf_counter()
            try:
                work(client, item)
            except BaseException as error:  # noqa: B036 -- reported by the main thread
                errors.append(error)
                return
            with lock:
                latencies.append(time.perf_counter() - start)

    threads = [threading.Thread(target=worker, args=(c,)) for c in clients]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    return latencies


def _wait(client: Client, done, *, timeout: float, what: str) -> float:
    """Poll until done(client) is true; the perf_counter time it became so."""
    deadline = time.perf_counter() + timeout
    while not done(client):
        if time.perf_counter() > deadline:
            raise RuntimeError(f'timed out after {timeout}s waiting for {what}')
        time.sleep(POLL)
    return time.perf_counter()


def run(url: str, *, count: int, concurrency: int, lists: int, size: int = 1,
        timeout: float = 600, meter: Meter | None = None) -> dict:
    """The run's figures; with a *meter*, also CPU ms per volume created and deleted (the
    polls included, the listings not), CPU ms per listing and each daemon's RSS after."""
    project = f'bench-{uuid.uuid4().hex[:12]}'
    cpu = meter.cpu if meter else dict
    clients = [Client(url, project) for _ in range(concurrency)]
    watcher = Client(url, project)
    try:
        # NOTE(quota): the project's own limits are lifted, so the defaults (10 volumes)
        # do not cut the run short; quota is still reserved and committed per volume.
        watcher.call('PUT', f'/os-quota-sets/{project}',
                     {'quota_set': {'volumes': -1, 'gigabytes': -1}}, expect=200)
        cpu_start = cpu()
        start = time.perf_counter()
        posts = _in_parallel(clients, list(range(count)), lambda c, i: c.call(
            'POST', '/volumes', {'volume': {'size': size, 'name': f'bench-{i}'}}, expect=202))
        posted = time.perf_counter()
        available = _wait(watcher, lambda c: c.count('status=available') == count,
                          timeout=timeout, what=f'{count} volumes available')

        cpu_created = cpu()

        def list_all(client, _):
            shown = client.call('GET', '/volumes/detail', expect=200)['volumes']
            if len(shown) != count:
                raise RuntimeError(f'listed {len(shown)} volumes, expected {count}')
            return shown

        listings = []
        for _ in range(lists):
            began = time.perf_counter()
            shown = list_all(watcher, None)
            listings.append(time.perf_counter() - began)
        cpu_listed = cpu()
        concurrent = _in_parallel(clients, list(range(concurrency * CONCURRENT_LISTS)),
                                  list_all)
        cpu_deleting = cpu()

        ids = [v['id'] for v in shown]
        deleting = time.perf_counter()
        _in_parallel(clients, ids, lambda c, vid: c.call('DELETE', f'/volumes/{vid}',
                                                         expect=202))
        gone = _wait(watcher, lambda c: c.count() == 0, timeout=timeout,
                     what=f'{count} volumes deleted')
        cpu_end = cpu()
    finally:
        for client in clients + [watcher]:
            client.close()
    figures = {
        'volumes': count, 'concurrency': concurrency,
        'post_p50_ms': percentile(posts, 50), 'post_p95_ms': percentile(posts, 95),
        'post_p99_ms': percentile(posts, 99),
        'post_per_s': round(count / (posted - start), 1),
        'end_to_end_volumes_per_s': round(count / (available - start), 1),
        'list_detail_p50_ms': percentile(listings, 50),
        'list_detail_p95_ms': percentile(listings, 95),
        f'list_detail_c{concurrency}_p50_ms': percentile(concurrent, 50),
        f'list_detail_c{concurrency}_p95_ms': percentile(concurrent, 95),
        'delete_volumes_per_s': round(count / (gone - deleting), 1),
    }
    if meter:
        work = {name: (cpu_created[name] - cpu_start[name]) + (cpu_end[name] - cpu_deleting[name])
                for name in cpu_start}
        figures['cpu_ms_per_volume'] = _spent(dict.fromkeys(work, 0.0), work, count)
        figures['cpu_ms_per_list_detail'] = _spent(cpu_created, cpu_listed, lists)['api']
        figures['rss_mb'] = meter.rss_mb()
    return figures


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument('--url', help='the volume API of a running deployment (noauth)')
    where.add_argument('--deploy', choices=('postgresql', 'mysql'),
                       help='start the four daemons with fake backends on this database')
    parser.add_argument('-n', '--volumes', type=int, default=500)
    parser.add_argument('-c', '--concurrency', type=int, default=16)
    parser.add_argument('--lists', type=int, default=20,
                        help='how many GET /volumes/detail of all N volumes to time')
    parser.add_argument('--api-workers', type=int, default=2, help='with --deploy')
    parser.add_argument('--backends', type=int, default=2, help='with --deploy')
    parser.add_argument('--keep-logs', action='store_true', help='with --deploy')
    args = parser.parse_args(argv)
    if args.lists < 1:
        parser.error('--lists must be at least 1 (the timed listings also give the ids to delete)')
    options = dict(count=args.volumes, concurrency=args.concurrency, lists=args.lists)
    if args.url:
        result = run(args.url, **options)
    else:
        import deployment  # benchmarks/deployment.py, beside this script
        deployment.stop_on_sigterm()
        with deployment.deployed(db=args.deploy, backends=args.backends,
                                 api_workers=args.api_workers,
                                 keep_logs=args.keep_logs) as stack:
            meter = Meter({name: d.proc.pid for name, d in stack.daemons.items()})
            result = run(f'http://127.0.0.1:{stack.api_port}', meter=meter, **options)
        result['database'] = args.deploy
    json.dump(result, sys.stdout)
    print()


if __name__ == '__main__':
    main()
