"""Active-Active failover end to end: two volume members of one cluster (file backend on one
shared directory, 5 s creates and 2 s deletes in the driver), RabbitMQ, PostgreSQL, tooz on
Redis.

A member killed with kill -9 is taken over by its peer without any API call; a paused member
is fenced and rejoins; POST /workers/cleanup settles a dead member's work when automatic
cleanup is off; two deletes of one volume through both members reach the driver once.
"""

import signal

import pytest
import sqlalchemy as sa

from cinderlike import conf as cl_conf
from cinderlike import context, rpc
from cinderlike.db.models import Worker
from cinderlike.volume import rpcapi as volume_rpcapi
from tests.fixtures.database import fresh_database
from tests.functional.e2e import failover
from tests.functional.e2e.stack import wait_for

pytestmark = [pytest.mark.rabbit, pytest.mark.postgresql, pytest.mark.redis,
              pytest.mark.qemu_img]

REPORT_INTERVAL = 1
SERVICE_DOWN_TIME = 4
BOUND = 2 * SERVICE_DOWN_TIME + REPORT_INTERVAL
V = failover.V
# What the peer makes of a member's operation it takes over.
OUTCOME = {'creating': 'error', 'deleting': 'deleted'}


@pytest.fixture
def make_stack(tmp_path, rabbit_url, redis_url, postgresql_server_url):
    """Start a two-member cluster (auto cleanup on unless told); yields (stack, db)."""
    opened = []

    def make(auto_cleanup=True):
        context_manager = fresh_database(postgresql_server_url)
        db_url = context_manager.__enter__()
        stack = failover.cluster_stack(
            tmp_path, db_url=db_url, transport_url=rabbit_url, redis_url=redis_url,
            auto_cleanup=auto_cleanup, report_interval=REPORT_INTERVAL,
            service_down_time=SERVICE_DOWN_TIME)
        db = failover.Database(db_url)
        opened.append((context_manager, stack, db))
        failover.start(stack)
        return stack, db
    yield make
    for context_manager, stack, db in opened:
        stack.close()
        db.close()
        context_manager.__exit__(None, None, None)


def _ids(stack, db, label):
    return db.service_id(failover.member_host(stack, label))


def _clean_end(stack, db):
    """Nothing transitional or in flight; quota and the pool's claim match the volumes."""
    try:
        wait_for(lambda: db.transitional() == 0 and db.workers() == 0,
                 timeout=failover.SETTLE, what='every volume to settle')
    except AssertionError as error:
        raise AssertionError(f'{error}: {db.leftovers()}') from None
    assert db.quota_drift() == 0
    assert db.claim_drift() == 0


def test_a_killed_members_work_is_settled_by_its_peer_without_an_api_call(make_stack):
    stack, db = make_stack()
    victim = _ids(stack, db, 'volume-a')
    failover.load(stack, db, creates=6, deletes=6, victim_id=victim)
    settled, seconds = failover.kill_and_time(stack, db, 'volume-a')
    assert seconds <= BOUND, f'failover took {seconds:.1f}s, bound {BOUND}s'
    assert set(settled.values()) == {'error', 'deleted'}
    _clean_end(stack, db)
    survivor = stack.daemons['volume-b'].log()
    assert 'Took over' in survivor
    # the volumes left in error are deleted as any other: claims and quota end at zero
    errors = [vid for vid, status in settled.items() if status == 'error']
    failover.delete(stack, errors)
    failover.wait_settled(db, errors)
    _clean_end(stack, db)


def test_a_paused_member_is_fenced_and_rejoins(make_stack):
    stack, db = make_stack()
    paused = _ids(stack, db, 'volume-a')
    failover.load(stack, db, creates=6, deletes=6, victim_id=paused)
    failover.signal_group(stack.daemons['volume-a'], signal.SIGSTOP)
    try:
        # NOTE(frozen): read once it is stopped: what it held before may have finished
        held = db.held(paused)
        assert {'creating', 'deleting'} <= set(held.values())
        settled = failover.wait_settled(db, list(held))
    finally:
        failover.signal_group(stack.daemons['volume-a'], signal.SIGCONT)
    log = stack.daemons['volume-a']
    wait_for(lambda: all(f'{vid}: {"create" if status == "creating" else "delete"} result '
                         f'refused' in log.log() for vid, status in held.items()),
             timeout=failover.SETTLE, what='the paused member to log its refused writes')
    # what the peer decided stands: creates error, deletes gone
    assert settled == {vid: OUTCOME[status] for vid, status in held.items()}
    assert db.statuses(held) == settled
    _clean_end(stack, db)
    # ... and the paused member goes on serving new work
    new = failover.create(stack, 8, name='after')
    assert set(failover.wait_settled(db, new).values()) == {'available'}
    assert any(f'create_volume {vid} received' in log.log() for vid in new)
    _clean_end(stack, db)


def test_workers_cleanup_api_settles_a_dead_member(make_stack):
    stack, db = make_stack(auto_cleanup=False)
    dead = _ids(stack, db, 'volume-a')
    failover.load(stack, db, creates=4, deletes=4, victim_id=dead)
    failover.kill(stack, db, 'volume-a')
    held = db.held(dead)
    host = failover.member_host(stack, 'volume-a')
    wait_for(lambda: stack.services().get(('cinder-volume', host), {}).get('state') == 'down',
             timeout=30, what='the killed member to show down')
    assert db.held(dead) == held  # nobody took them over on their own
    answer = stack.ok('POST', f'{V}/workers/cleanup', {}, expect=202,
                      version='3.24')
    assert answer == {'cleaning': [{'id': dead, 'host': host, 'binary': 'cinder-volume',
                                    'cluster_name': f'{failover.CLUSTER}@{failover.BACKEND}'}],
                      'unavailable': []}
    settled = failover.wait_settled(db, list(held))
    assert settled == {vid: OUTCOME[status] for vid, status in held.items()}
    _clean_end(stack, db)


def test_two_deletes_of_one_volume_through_both_members_reach_the_driver_once(make_stack):
    stack, db = make_stack()
    (volume_id,) = failover.create(stack, 1)
    assert failover.wait_settled(db, [volume_id]) == {volume_id: 'available'}
    path = stack.workdir / 'shared' / f'volume-{volume_id}'
    assert path.exists()
    stack.ok('POST', f'{V}/volumes/{volume_id}/action',
             {'os-reset_status': {'status': 'deleting'}}, expect=202)
    conf = cl_conf.parse(['--config-file', str(stack.config_path)])
    api = volume_rpcapi.VolumeAPI(conf)
    ctx = context.get_admin_context()
    try:
        for label in failover.MEMBERS:
            api.delete_volume(ctx, volume_id=volume_id,
                              host=failover.member_host(stack, label))
    finally:
        rpc.cleanup()
    assert failover.wait_settled(db, [volume_id]) == {volume_id: 'deleted'}
    logs = {label: stack.daemons[label].log() for label in failover.MEMBERS}
    wait_for(lambda: all(f'delete_volume {volume_id} received' in stack.daemons[label].log()
                         for label in failover.MEMBERS),
             timeout=30, what='both members to receive the delete')
    logs = {label: stack.daemons[label].log() for label in failover.MEMBERS}
    assert sum(f'Volume {volume_id} destroyed' in log for log in logs.values()) == 1
    assert not any('was already gone' in log for log in logs.values())
    assert not path.exists()
    _clean_end(stack, db)


def _snapshots(stack, volume_id, count) -> list[str]:
    return [stack.ok('POST', f'{V}/snapshots', {'snapshot': {
        'volume_id': volume_id, 'name': f'snap-{i}'}}, expect=202)['snapshot']['id']
        for i in range(count)]


def _snapshots_settled(db, ids) -> dict[str, str]:
    def settled():
        found = db.snapshot_statuses(ids)
        if any(status in ('creating', 'deleting') for status in found.values()):
            return None
        return found if db.workers() == 0 else None
    return wait_for(settled, timeout=failover.SETTLE, what=f'{len(ids)} snapshots to settle')


def test_a_killed_members_snapshot_work_is_settled_by_its_peer(make_stack):
    """Snapshot creates and deletes in flight on a member killed with kill -9: its peer
    sets the creates to error and runs the deletes again, as it does for volumes."""
    stack, db = make_stack()
    victim = _ids(stack, db, 'volume-a')
    (volume_id,) = failover.create(stack, 1)
    assert failover.wait_settled(db, [volume_id]) == {volume_id: 'available'}
    ready = _snapshots(stack, volume_id, 4)
    assert set(_snapshots_settled(db, ready).values()) == {'available'}
    loaded = set(_snapshots(stack, volume_id, 6))
    for snapshot_id in ready:
        stack.ok('DELETE', f'{V}/snapshots/{snapshot_id}', expect=202)
    loaded |= set(ready)
    taken: set = set()

    def busy():
        with db.db.reader() as s:
            taken.update(s.scalars(sa.select(Worker.resource_id)))
        held = db.held(victim)
        return held if loaded <= taken and {'creating', 'deleting'} <= set(
            held.values()) else None
    held = wait_for(busy, timeout=60, what='the victim to hold snapshot creates and deletes')
    failover.signal_group(stack.daemons['volume-a'], signal.SIGKILL)
    settled = _snapshots_settled(db, list(loaded))
    assert {sid: settled[sid] for sid in held} == {
        sid: OUTCOME[status] for sid, status in held.items()}
    assert 'Took over' in stack.daemons['volume-b'].log()
    assert db.snapshot_quota_drift() == 0
    on_disk = {p.name for p in (stack.workdir / 'shared').iterdir()}
    for snapshot_id, status in settled.items():
        assert (f'snapshot-{snapshot_id}' in on_disk) == (status == 'available'), snapshot_id
