"""Capacity end to end: one fake pool, N schedulers, bursts of creates through the REST API.

Shared by tests/functional/e2e/test_overcommit.py, test_capacity_churn.py and
benchmarks/overcommit.py, so the benchmark and the tests count the same way.
"""

import datetime
import threading

from tests.functional.e2e.stack import PROJECT, Stack, wait_for

BACKEND = 'fake'
STARTUP = 120  # seconds for up to seven Python daemons to import, connect and report
SETTLE = 120   # seconds for a burst of volumes to reach steady statuses
NO_VALID_BACKEND = 'VOLUME_VOLUME_001_003'
NO_VALID_BACKEND_MESSAGE = (
    'schedule allocate volume:Could not find any available weighted backend.')
V = f'/v3/{PROJECT}'
TOTAL_GB = 100  # the pool the benchmark and tests fill
TERMINAL = ('available', 'error')


def pool_stack(workdir, *, db_url, transport_url, provisioning, total_gb=TOTAL_GB,
               ratio=2.0):
    """A Stack (not started) with one fake pool of *total_gb* that accepts everything.

    thick: the pool's limit is *total_gb*; thin: *total_gb* × *ratio*. Quotas are unlimited
    (start() sets them) so that only capacity can refuse a volume.
    """
    stack = Stack(workdir, db_url=db_url, transport_url=transport_url, backends=(BACKEND,),
                  report_interval=2, service_down_time=20)
    stack.update_config(scheduler_driver_init_wait_time=10)
    stack.update_config(BACKEND, fake_total_capacity_gb=total_gb,
                        fake_thin_provisioning=provisioning == 'thin',
                        fake_refuse_overcommit=False, max_over_subscription_ratio=ratio)
    return stack


def expected_count(*, provisioning, total_gb=TOTAL_GB, ratio=2.0, size_gb=10) -> int:
    """How many volumes of *size_gb* the pool may take (CapacityFilter's limit, reserve 0)."""
    limit = total_gb * ratio if provisioning == 'thin' else total_gb
    return int(limit // size_gb)


def start(stack, schedulers, timeout=STARTUP):
    """Start *schedulers* schedulers, the volume service and the API; return once the pool
    is known to the schedulers (a create waits for each scheduler's first report anyway)."""
    stack.run('cinderlike-manage', 'db', 'sync')
    stack.start_schedulers(schedulers)
    stack.start('volume')
    stack.start('api')
    stack.wait_for_api(timeout=timeout)
    stack.ok('PUT', f'{V}/os-quota-sets/{PROJECT}',
             {'quota_set': {'volumes': -1, 'gigabytes': -1}}, expect=200)
    wanted = f'{stack.host}@{BACKEND}#{BACKEND}'
    wait_for(lambda: wanted in stack.pool_names(), timeout=timeout,
             what=f'the schedulers to know pool {wanted}')


def burst(stack, count, size_gb) -> list[str]:
    """POST *count* creates of *size_gb* from as many threads released together; their ids."""
    barrier = threading.Barrier(count)
    ids: list = [None] * count
    errors: list = []

    def create(index):
        barrier.wait()
        try:
            ids[index] = stack.ok('POST', f'{V}/volumes', {'volume': {
                'size': size_gb, 'name': f'burst-{index}'}}, expect=202)['volume']['id']
        except Exception as exc:  # reported below, with the others
            errors.append(exc)
    threads = [threading.Thread(target=create, args=(index,)) for index in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise AssertionError(f'{len(errors)} creates refused by the API: {errors[0]}')
    return ids


def volumes(stack) -> dict[str, dict]:
    """Every volume of the project, by id."""
    listed = stack.ok('GET', f'{V}/volumes/detail?limit=1000', expect=200)['volumes']
    return {volume['id']: volume for volume in listed}


def wait_terminal(stack, ids, timeout=SETTLE) -> dict[str, dict]:
    """The volumes *ids* once every one is available or error."""
    def settled():
        found = volumes(stack)
        chosen = {vid: found.get(vid) for vid in ids}
        if all(v is not None and v['status'] in TERMINAL for v in chosen.values()):
            return chosen
        return None
    return wait_for(settled, timeout=timeout, what=f'{len(ids)} volumes to settle')


def user_messages(stack, volume_id) -> list[tuple[str, str]]:
    """(event_id, user_message) of the volume's user messages."""
    answer = stack.ok('GET', f'{V}/messages?resource_uuid={volume_id}', expect=200,
                      version='3.5')
    return [(m['event_id'], m['user_message']) for m in answer['messages']]


def no_valid_backend(stack, volume_id) -> bool:
    """Whether the volume carries the no-valid-backend user message (written after the
    status, so it is waited for a little)."""
    wanted = (NO_VALID_BACKEND, NO_VALID_BACKEND_MESSAGE)
    try:
        wait_for(lambda: wanted in user_messages(stack, volume_id), timeout=10,
                 what=f'the user message of volume {volume_id}')
    except AssertionError:
        return False
    return True


def pool_claim(stack) -> float:
    """allocated_capacity_gb of the fake pool (the database's claim, via get_pools)."""
    answer = stack.ok('GET', f'{V}/scheduler-stats/get_pools?detail=true', expect=200)
    (pool,) = [p for p in answer['pools'] if p['name'] == f'{stack.host}@{BACKEND}#{BACKEND}']
    return pool['capabilities']['allocated_capacity_gb']


def wait_pool_empty(stack, *, total_gb, schedulers, timeout=SETTLE):
    """Wait until nothing is claimed and a report gathered after this call gives the whole
    pool as free, in 2 × *schedulers* answers of get_pools in a row (each goes to one
    scheduler).

    NOTE(free): CapacityFilter also takes a thick pool's *reported* free capacity (Cinder's
    rule), which each placement lowers in the scheduler's memory until the driver reports
    again; get_pools shows the last report as it came. Right after deletes, that report can
    be the one from before the previous burst: empty, while the scheduler still counts the
    burst's placements against it.
    """
    since = datetime.datetime.now(datetime.UTC).replace(tzinfo=None)

    def reported_after(stamp) -> bool:
        at = datetime.datetime.fromisoformat(stamp) if stamp else None
        if at is not None and at.tzinfo is not None:
            at = at.astimezone(datetime.UTC).replace(tzinfo=None)
        return at is not None and at > since

    def empty():
        answer = stack.ok('GET', f'{V}/scheduler-stats/get_pools?detail=true', expect=200)
        caps = [p['capabilities'] for p in answer['pools']]
        return len(caps) == 1 and (caps[0]['allocated_capacity_gb'],
                                   caps[0]['free_capacity_gb']) == (0, total_gb) and \
            reported_after(caps[0]['timestamp'])
    wait_for(lambda: all(empty() for _ in range(2 * schedulers)), timeout=timeout,
             what='the pool to be reported empty')


def outcome(stack, settled: dict[str, dict]) -> dict:
    """Counts of one burst: available, error, errors with the no-valid-backend message,
    GB promised to available volumes and GB the pool has claimed."""
    available = [v for v in settled.values() if v['status'] == 'available']
    errors = [v for v in settled.values() if v['status'] == 'error']
    return {'available': len(available), 'error': len(errors),
            'error_no_valid_backend': sum(no_valid_backend(stack, v['id']) for v in errors),
            'promised_gb': sum(v['size'] for v in available), 'claimed_gb': pool_claim(stack)}


def delete(stack, ids, timeout=SETTLE):
    """Delete the volumes *ids* and wait until they are gone."""
    for volume_id in ids:
        stack.ok('DELETE', f'{V}/volumes/{volume_id}', expect=202)
    wait_for(lambda: not set(ids) & set(volumes(stack)), timeout=timeout,
             what=f'{len(ids)} volumes to be deleted')
