"""Creates and deletes mixed across three schedulers: claims end equal to the live volumes.

Client threads create volumes of random sizes on one thick 100 GB pool and delete their own
settled volumes, for CINDERLIKE_CHURN_SECONDS (20 by default, so CI stays short; the issue's
full minute is `CINDERLIKE_CHURN_SECONDS=60`). The pool's claim is sampled throughout and
never exceeds the pool; at the end it equals the sum of the live volumes' sizes and
`cinderlike-manage capacity check` finds no drift.
"""

import os
import random
import threading
import time

import pytest

from tests.fixtures.database import fresh_database
from tests.functional.e2e import capacity
from tests.functional.e2e.stack import wait_for

pytestmark = [pytest.mark.rabbit, pytest.mark.postgresql]

SCHEDULERS = 3
CLIENTS = 6
TOTAL_GB = 100
DURATION = float(os.environ.get('CINDERLIKE_CHURN_SECONDS', '20'))


@pytest.fixture
def stack(tmp_path, postgresql_server_url, rabbit_url):
    with fresh_database(postgresql_server_url) as db_url:
        stack = capacity.pool_stack(tmp_path, db_url=db_url, transport_url=rabbit_url,
                                    provisioning='thick', total_gb=TOTAL_GB)
        # NOTE(churn): slow driver calls keep creates and deletes in flight together.
        stack.update_config(capacity.BACKEND,
                            fake_latency='create_volume:0.05,delete_volume:0.05')
        try:
            capacity.start(stack, SCHEDULERS)
            yield stack
        finally:
            stack.close()


def _client(stack, seed, deadline, tally):
    """Create or delete at random until *deadline*; count what the API accepted."""
    rng = random.Random(seed)
    mine: list[str] = []
    while time.monotonic() < deadline:
        if mine and rng.random() < 0.45:
            volume_id = mine[rng.randrange(len(mine))]
            status, _ = stack.request('DELETE', f'{capacity.V}/volumes/{volume_id}')
            if status == 202:
                mine.remove(volume_id)
                tally['deletes'] += 1
            else:  # still creating: settled volumes are the only deletable ones
                assert status == 400, status
        else:
            status, body = stack.request('POST', f'{capacity.V}/volumes', {
                'volume': {'size': rng.randint(1, 10)}})
            assert status == 202, body
            mine.append(body['volume']['id'])
            tally['creates'] += 1


def _sample_claims(stack, stop, seen):
    while not stop.is_set():
        seen.append(capacity.pool_claim(stack))
        stop.wait(0.2)


def _settled(stack):
    """Live volumes once none is creating or deleting."""
    def steady():
        found = capacity.volumes(stack)
        if any(v['status'] in ('creating', 'deleting') for v in found.values()):
            return None
        return found
    return wait_for(steady, timeout=capacity.SETTLE, what='volumes to settle')


def test_claims_equal_live_volumes_after_mixed_creates_and_deletes(stack):
    deadline = time.monotonic() + DURATION
    tally = {'creates': 0, 'deletes': 0}
    stop, seen = threading.Event(), []
    sampler = threading.Thread(target=_sample_claims, args=(stack, stop, seen))
    sampler.start()
    errors = []

    def client(seed):
        try:
            _client(stack, seed, deadline, tally)
        except Exception as exc:  # reported below
            errors.append(exc)
    threads = [threading.Thread(target=client, args=(seed,)) for seed in range(CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    live = _settled(stack)
    stop.set()
    sampler.join()

    assert not errors, errors[0]
    assert tally['creates'] > 0 and tally['deletes'] > 0, tally
    assert seen and max(seen) <= TOTAL_GB
    placed = sum(v['size'] for v in live.values() if v['os-vol-host-attr:host'])
    assert sum(v['status'] == 'available' for v in live.values()) > 0
    assert capacity.pool_claim(stack) == placed <= TOTAL_GB
    print(f'churn {DURATION:g}s: {tally}, {len(live)} volumes left, {placed} GB placed, '
          f'claim sampled {len(seen)} times, at most {max(seen)} GB')
    assert 'No capacity drift.' in stack.capacity_check()
