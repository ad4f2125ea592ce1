"""The chaos run in its short CI mode: a minute of mixed operations through kill -9 of
daemons and a restart each of RabbitMQ and PostgreSQL leaves nothing stuck, no quota or
capacity drift, no operation without an outcome and no 5xx but 503s while a server was down.

The run starts its own RabbitMQ node and PostgreSQL cluster (tests/fixtures/private_servers.py),
so it needs those servers' packages rather than the shared servers. It is marked like the
real-service suites (rabbit, postgresql) so that it runs whenever they do, and fails, never
skips, when the packages are missing.
"""

import json
import os

import pytest

from tests.fixtures import private_servers
from tests.functional.e2e import chaos

pytestmark = [pytest.mark.rabbit, pytest.mark.postgresql, pytest.mark.qemu_img]

DURATION = float(os.environ.get('CINDERLIKE_CHAOS_SECONDS', '60'))


def test_a_short_chaos_run_leaves_nothing_stuck(tmp_path):
    missing = private_servers.missing()
    if missing:
        pytest.fail(f'the chaos run needs RabbitMQ and PostgreSQL installed: {missing}')
    result = chaos.run(tmp_path, chaos.Options(duration=DURATION, seed=7, kill_interval=20))
    assert result['accepted'] > 0, result
    assert result['fault_failure'] is None, result['fault_failure']
    assert result['client_failures'] == [], result['client_failures']
    faults = {fault['what'].split()[0] for fault in result['faults']}
    assert faults == {'kill', 'rabbitmq', 'postgresql'}, result['faults']
    stuck = result['stuck_detail']
    assert sum(len(rows) for rows in stuck.values()) == result['stuck_transitional'], (
        json.dumps(result, indent=1))
    counts = {key: result[key] for key in chaos.REQUIRED_ZERO}
    assert counts == dict.fromkeys(chaos.REQUIRED_ZERO, 0), json.dumps(result, indent=1)
