"""Failover end to end: two cinderlike-volume members of one cluster for one `file` backend on
a shared directory, tooz on Redis, RabbitMQ and PostgreSQL; driver latency keeps work in
flight while a member is killed or paused.

Shared by tests/functional/e2e/test_failover.py and benchmarks/failover.py, so the benchmark
and the tests measure the same way. The database is read directly (workers rows, quota
usages and pool claims are not all visible through the API).
"""

import os
import signal
import threading
import time

import psutil
import sqlalchemy as sa

from cinderlike.db import engine
from cinderlike.db.models import Pool, QuotaUsage, Service, Snapshot, Volume, Worker
from tests.functional.e2e.stack import PROJECT, Stack, wait_for

BACKEND = 'shared'
CLUSTER = 'failover'
POOL = f'{CLUSTER}@{BACKEND}#{BACKEND}'
MEMBERS = ('volume-a', 'volume-b')
STARTUP = 120
SETTLE = 120
TRANSITIONAL = ('creating', 'deleting', 'extending')
V = f'/v3/{PROJECT}'


def cluster_stack(workdir, *, db_url, transport_url, redis_url, create_latency=5.0,
                  delete_latency=2.0, auto_cleanup=True, report_interval=1,
                  service_down_time=4) -> Stack:
    """A Stack (not started) whose volume members share one file backend in cluster
    `failover`, the driver waiting *create_latency* / *delete_latency* seconds before each
    create / delete of a volume or a snapshot (a taken-over create costs no driver time; a
    delete is run again)."""
    stack = Stack(workdir, db_url=db_url, transport_url=transport_url, backends=(BACKEND,),
                  report_interval=report_interval, service_down_time=service_down_time)
    # NOTE(lost_cast): a member killed after RabbitMQ handed it a cast, before it took the
    # operation's workers row, leaves that row untaken; the sweep settles it after
    # lost_operation_timeout (the kill tests wait up to 120 s).
    stack.update_config(cluster=CLUSTER, auto_cleanup_enabled=auto_cleanup,
                        auto_cleanup_interval=report_interval, debug=True,
                        scheduler_driver_init_wait_time=5,
                        lost_operation_timeout=4 * service_down_time,
                        lost_operation_interval=report_interval)
    # NOTE(redis): a dead member's locks expire after lock_timeout; the heartbeat
    # (every membership_timeout) keeps a live member's locks.
    stack.update_config('coordination', backend_url=(
        f"{redis_url.rstrip('/')}/?lock_timeout=3&membership_timeout=1"))
    stack.update_config(BACKEND, volume_driver='file',
                        file_volume_directory=workdir / 'shared',
                        file_latency=f'create_volume:{create_latency},'
                                     f'delete_volume:{delete_latency},'
                                     f'create_snapshot:{create_latency},'
                                     f'delete_snapshot:{delete_latency}')
    return stack


def member_host(stack, label) -> str:
    return f'{stack.host}-{label[-1]}@{BACKEND}'


def start(stack, timeout=STARTUP) -> None:
    """Scheduler, both members (hosts `<host>-a`, `<host>-b`) and the API; returns once the
    scheduler knows the cluster's pool. Quotas are unlimited."""
    stack.run('cinderlike-manage', 'db', 'sync')
    stack.start('scheduler')
    for label in MEMBERS:
        stack.start('volume', label=label, host=member_host(stack, label).partition('@')[0])
    stack.start('api')
    stack.wait_for_api(timeout=timeout)
    stack.ok('PUT', f'{V}/os-quota-sets/{PROJECT}',
             {'quota_set': {'volumes': -1, 'gigabytes': -1, 'snapshots': -1}}, expect=200)
    wait_for(lambda: POOL in stack.pool_names(), timeout=timeout,
             what=f'the scheduler to know pool {POOL}')


class Database:
    """Direct reads of the stack's database."""

    def __init__(self, url):
        self.db = engine.Database(url)

    def close(self):
        self.db.dispose()

    def service_id(self, host) -> int:
        with self.db.reader() as s:
            return s.scalar(sa.select(Service.id).where(Service.host == host,
                                                        Service.deleted.is_(False)))

    @property
    def server_port(self) -> int:
        return self.db.engine.url.port or 5432

    def sessions_from(self, ports) -> int:
        """How many of the PostgreSQL server's sessions come from the client *ports*."""
        with self.db.reader() as s:
            return s.scalar(sa.text(
                'SELECT count(*) FROM pg_stat_activity WHERE client_port = ANY(:ports)'),
                {'ports': sorted(ports)})

    def held(self, service_id) -> dict[str, str]:
        """{volume id: status} of the workers rows *service_id* holds."""
        with self.db.reader() as s:
            return dict(s.execute(sa.select(Worker.resource_id, Worker.status)
                                  .where(Worker.service_id == service_id)).all())

    def workers(self) -> int:
        with self.db.reader() as s:
            return s.scalar(sa.select(sa.func.count()).select_from(Worker))

    def statuses(self, ids) -> dict[str, str]:
        """{volume id: status} ('deleted' once soft-deleted)."""
        with self.db.reader() as s:
            return dict(s.execute(sa.select(Volume.id, Volume.status)
                                  .where(Volume.id.in_(list(ids)))).all())

    def snapshot_statuses(self, ids) -> dict[str, str]:
        """{snapshot id: status} ('deleted' once soft-deleted)."""
        with self.db.reader() as s:
            return dict(s.execute(sa.select(Snapshot.id, Snapshot.status)
                                  .where(Snapshot.id.in_(list(ids)))).all())

    def snapshot_quota_drift(self) -> int:
        """|snapshots in_use - live snapshots|, plus whatever is reserved."""
        with self.db.reader() as s:
            live = s.scalar(sa.select(sa.func.count()).select_from(Snapshot).where(
                Snapshot.deleted.is_(False), Snapshot.project_id == PROJECT))
            usage = s.scalars(sa.select(QuotaUsage).where(
                QuotaUsage.project_id == PROJECT, QuotaUsage.resource == 'snapshots')).first()
        return abs((usage.in_use if usage else 0) - live) + (usage.reserved if usage else 0)

    def leftovers(self) -> dict:
        """Workers rows and transitional volumes, for a failure message."""
        with self.db.reader() as s:
            rows = s.execute(sa.select(Worker.resource_id, Worker.status, Worker.service_id,
                                       Worker.epoch)).all()
            volumes = s.execute(sa.select(Volume.id, Volume.status).where(
                Volume.deleted.is_(False), Volume.status.in_(TRANSITIONAL))).all()
        return {'workers': [tuple(r) for r in rows], 'volumes': [tuple(v) for v in volumes]}

    def transitional(self) -> int:
        with self.db.reader() as s:
            return s.scalar(sa.select(sa.func.count()).select_from(Volume).where(
                Volume.deleted.is_(False), Volume.status.in_(TRANSITIONAL)))

    def quota_drift(self) -> int:
        """|in_use - live volumes| for volumes and gigabytes, plus whatever is reserved."""
        with self.db.reader() as s:
            count, size = s.execute(sa.select(sa.func.count(), sa.func.sum(Volume.size))
                                    .where(Volume.deleted.is_(False),
                                           Volume.project_id == PROJECT)).one()
            usages = {u.resource: u for u in s.scalars(sa.select(QuotaUsage).where(
                QuotaUsage.project_id == PROJECT))}
        drift = sum(abs(u.reserved) for u in usages.values())
        for resource, live in (('volumes', count), ('gigabytes', size or 0)):
            usage = usages.get(resource)
            drift += abs((usage.in_use if usage else 0) - live)
        return drift

    def claim_drift(self) -> float:
        """Pool claim minus the sizes of the live volumes holding one (launched: a create
        that failed or was cut short gave its claim back)."""
        with self.db.reader() as s:
            claim = s.scalar(sa.select(Pool.allocated_capacity_gb).where(Pool.name == POOL))
            launched = s.scalar(sa.select(sa.func.coalesce(sa.func.sum(Volume.size), 0)).where(
                Volume.deleted.is_(False), Volume.launched_at.is_not(None)))
        return float(claim or 0) - float(launched)


def create(stack, count, size=1, name='load') -> list[str]:
    """POST *count* creates at once (threads); their ids."""
    ids: list = [None] * count

    def one(index):
        ids[index] = stack.ok('POST', f'{V}/volumes', {'volume': {
            'size': size, 'name': f'{name}-{index}'}}, expect=202)['volume']['id']
    threads = [threading.Thread(target=one, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return ids


def delete(stack, ids) -> None:
    for volume_id in ids:
        stack.ok('DELETE', f'{V}/volumes/{volume_id}', expect=202)


def wait_settled(db, ids, timeout=SETTLE) -> dict[str, str]:
    """{id: status} once none of *ids* is transitional (and none has a workers row)."""
    def settled():
        found = db.statuses(ids)
        if any(status in TRANSITIONAL for status in found.values()):
            return None
        with db.db.reader() as s:
            if s.scalar(sa.select(sa.func.count()).select_from(Worker)
                        .where(Worker.resource_id.in_(list(ids)))):
                return None
        return found
    return wait_for(settled, timeout=timeout, what=f'{len(ids)} volumes to settle')


def load(stack, db, *, creates, deletes, victim_id, timeout=60) -> dict[str, str]:
    """*deletes* available volumes deleted and *creates* new ones created at once; returns
    once every one of them is in a member's hands (has its workers row) and the member
    *victim_id* holds at least one create and one delete.

    NOTE(window): oslo.messaging acknowledges a cast before the manager runs, so a member
    killed between the two (a few milliseconds) takes the cast with it and writes no row:
    that volume would stay in its status, as in Cinder. The load waits past that window.
    """
    ready = create(stack, deletes, name='to-delete')
    assert set(wait_settled(db, ready).values()) == {'available'}
    # NOTE(order): the slower creates first, so no delete is near its end at the kill; the
    # deletes go out once the victim holds a create (seconds in its driver), however long
    # placement took on a busy machine, so its deletes run while that create does.
    loaded = set(create(stack, creates))
    wait_for(lambda: 'creating' in db.held(victim_id).values(), timeout=timeout,
             what='the victim to hold a create')
    delete(stack, ready)
    loaded |= set(ready)

    taken: set = set()

    def busy():
        with db.db.reader() as s:
            taken.update(s.scalars(sa.select(Worker.resource_id)))
        held = db.held(victim_id)
        if loaded <= taken and {'creating', 'deleting'} <= set(held.values()):
            return held
        return None
    return wait_for(busy, timeout=timeout, what='the victim to hold creates and deletes')


def signal_group(daemon, signum) -> None:
    """*signum* to a daemon's whole process group (its parent and its worker)."""
    os.killpg(daemon.proc.pid, signum)


def kill(stack, db, label) -> float:
    """kill -9 of member *label*'s process group; returns the monotonic time of the kill once
    the member has exited and the database has closed its connections.

    NOTE(in_flight): a COMMIT the member sent just before it died still lands (the server
    runs it, then finds the client gone), so what it holds is read only after that.
    """
    daemon = stack.daemons[label]
    parent = psutil.Process(daemon.proc.pid)
    ports = {conn.laddr.port for proc in (parent, *parent.children(recursive=True))
             for conn in proc.net_connections('tcp')
             if conn.raddr and conn.raddr.port == db.server_port}
    signal_group(daemon, signal.SIGKILL)
    killed = time.monotonic()
    daemon.proc.wait(30)
    wait_for(lambda: not db.sessions_from(ports), timeout=30,
             what=f'the database to close the connections of {label}')
    return killed


def kill_and_time(stack, db, label) -> tuple[dict[str, str], float]:
    """kill -9 of member *label*; returns ({volume id: status} of what it held, seconds from
    the kill until the last of those settled)."""
    victim = db.service_id(member_host(stack, label))
    killed = kill(stack, db, label)
    held = list(db.held(victim))
    settled = wait_settled(db, held)
    return settled, time.monotonic() - killed
