"""Time one placement — filters, weighers and the database claim — among N pools.

    .venv/bin/python benchmarks/scheduler.py [--pools 10,100,1000,5000] [--placements 300]
        [--db-url sqlite://]   # or postgresql+psycopg2://... (an empty database it may fill)

Each pool belongs to its own up volume service that reported it; the scheduler's pools view,
the filter chain and weighers of the default configuration, and the claim on the best pool
(`db/placements.place_volume`, as the scheduler calls it: the frozen check, the conditional
UPDATE of the pool and the volume's host, in one transaction) are timed together. Prints p50
and p99 in milliseconds per N, of wall time and of the placing thread's CPU time (which the
machine's load moves less), then
the growth between successive N: the p50 ratios and their exponents (log ratio / log N
ratio; below 1 is sub-linear).
"""

import argparse
import json
import math
import statistics
import time

from cinderlike import capacity
from cinderlike import conf as conf_pkg
from cinderlike.db import engine, models
from cinderlike.db import placements as db_placements
from cinderlike.db import pools as db_pools
from cinderlike.db import services as db_services
from cinderlike.scheduler import filter_scheduler, host_manager
from cinderlike.volume import periodics


def _report(index):
    return {'volume_backend_name': f'b{index}', 'storage_protocol': 'iSCSI',
            'vendor_name': 'Open', 'driver_version': '1.0',
            'pools': [{'pool_name': 'pool', 'total_capacity_gb': 1_000_000 + index,
                       'free_capacity_gb': 1_000_000, 'reserved_percentage': 5,
                       'max_over_subscription_ratio': '20.0',
                       'thin_provisioning_support': index % 2 == 0,
                       'thick_provisioning_support': True}]}


def _setup(db, conf, count):
    hm = host_manager.HostManager(conf, db)
    now = models.utcnow()
    for index in range(count):
        host = f'node{index}@b{index}'
        db_services.register(db, host=host, binary='cinder-volume', topic='cinder-volume',
                             availability_zone='nova')
        report = _report(index)
        pools = [periodics.pool_limits(f'{host}#{name}', cap)
                 for name, cap in capacity.report_pools(report)]
        db_pools.record_report(db, backend=host, cluster_name=None, seq=1, gathered_at=now,
                               pools=pools)
        hm.update(host_manager.CapabilityReport('volume', host, None, report, now, 1))
    return hm


def _volumes(db, count):
    """*count* volumes waiting for a backend, as the API leaves them."""
    with db.writer() as s:
        s.add_all(models.Volume(id=f'vol-{index}', project_id='p', size=1, status='creating',
                                volume_type_id='t', availability_zone='nova')
                  for index in range(count))


def _request(index):
    props = {'size': 1, 'availability_zone': 'nova', 'project_id': 'p'}
    spec = {'volume_id': f'vol-{index}', 'volume_properties': props,
            'resource_properties': props,
            'volume_type': {'id': 't', 'name': 't', 'extra_specs': {
                'capabilities:storage_protocol': '<in> iSCSI'}}}
    return spec


def run(db_url, count, placements):
    conf = conf_pkg.new_conf()
    conf([], default_config_files=[])
    # NOTE(heartbeats): nothing reports here, and registering 10,000 services on a loaded
    # machine can take longer than service_down_time: the first would count as down.
    conf.set_override('service_down_time', 24 * 3600)
    db = engine.Database(db_url)
    models.Base.metadata.drop_all(db.engine)
    models.Base.metadata.create_all(db.engine)
    hm = _setup(db, conf, count)
    _volumes(db, placements + 20)
    placer = filter_scheduler.FilterScheduler.from_conf(conf)
    timings, cpu = [], []
    for index in range(placements + 20):
        started, cpu_started = time.perf_counter(), time.thread_time()
        weighed = placer.weighed_candidates(hm.pools(), _request(index), {})
        for candidate in weighed:
            pool = candidate.obj
            placed = db_placements.place_volume(
                db, volume_id=f'vol-{index}', pool=pool.backend_id, size_gb=1,
                host=pool.volume_host, cluster_name=pool.volume_cluster_name)
            if placed is db_placements.Placed.PLACED:
                hm.consumed(pool, 1)
                break
        else:
            raise RuntimeError('no pool took the volume')
        if index >= 20:  # warm-up: caches, connections, compiled statements
            timings.append((time.perf_counter() - started) * 1000)
            cpu.append((time.thread_time() - cpu_started) * 1000)
    db.dispose()
    timings.sort()
    cpu.sort()
    return {'pools': count, 'placements': placements, 'db': db.dialect,
            'p50_ms': round(statistics.median(timings), 3),
            'p99_ms': round(timings[int(len(timings) * 0.99) - 1], 3),
            'cpu_p50_ms': round(statistics.median(cpu), 3),
            'cpu_p99_ms': round(cpu[int(len(cpu) * 0.99) - 1], 3)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--pools', default='10,100,1000,5000')
    parser.add_argument('--placements', type=int, default=300)
    parser.add_argument('--db-url', default='sqlite://')
    args = parser.parse_args()
    results = []
    for count in (int(n) for n in args.pools.split(',')):
        results.append(run(args.db_url, count, args.placements))
        print(json.dumps(results[-1]), flush=True)
    steps = zip(results, results[1:], strict=False)
    print(json.dumps({'growth': [growth(a, b) for a, b in steps]}))


def growth(smaller: dict, larger: dict) -> dict:
    """How p50 (wall and CPU) grew from *smaller* to *larger* pool counts."""
    scale = math.log(larger['pools'] / smaller['pools'])
    ratio = larger['p50_ms'] / smaller['p50_ms']
    cpu_ratio = larger['cpu_p50_ms'] / smaller['cpu_p50_ms']
    return {'pools': [smaller['pools'], larger['pools']], 'p50_ratio': round(ratio, 2),
            'exponent': round(math.log(ratio) / scale, 2),
            'cpu_p50_ratio': round(cpu_ratio, 2),
            'cpu_exponent': round(math.log(cpu_ratio) / scale, 2)}


if __name__ == '__main__':
    main()
