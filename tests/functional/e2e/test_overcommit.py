"""No over-commit with three schedulers (bug 1553731), on RabbitMQ and PostgreSQL.

30 creates of 10 GB are released together through the REST API at one 100 GB pool whose
driver accepts everything: thick, exactly 10 become available and 20 end in error with the
no-valid-backend user message; thin with max_over_subscription_ratio 2.0, exactly 20.
Real Cinder 29 makes 30 available here.
"""

import pytest

from tests.fixtures.database import fresh_database
from tests.functional.e2e import capacity

pytestmark = [pytest.mark.rabbit, pytest.mark.postgresql]

SCHEDULERS = 3
CREATES, SIZE = 30, 10


@pytest.fixture(params=['thick', 'thin'])
def stack(request, tmp_path, postgresql_server_url, rabbit_url):
    with fresh_database(postgresql_server_url) as db_url:
        stack = capacity.pool_stack(tmp_path, db_url=db_url, transport_url=rabbit_url,
                                    provisioning=request.param)
        stack.provisioning = request.param
        try:
            capacity.start(stack, SCHEDULERS)
            yield stack
        finally:
            stack.close()


def _schedulers_that_worked(stack, ids) -> int:
    """How many scheduler processes placed or refused at least one of *ids*."""
    logs = [daemon.log() for label, daemon in stack.daemons.items()
            if label.startswith('scheduler')]
    return sum(any(volume_id in log for volume_id in ids) for log in logs)


def test_thirty_concurrent_creates_never_over_commit_the_pool(stack):
    expected = capacity.expected_count(provisioning=stack.provisioning, size_gb=SIZE)
    assert expected == (10 if stack.provisioning == 'thick' else 20)

    ids = capacity.burst(stack, CREATES, SIZE)
    settled = capacity.wait_terminal(stack, ids)

    available = [v for v in settled.values() if v['status'] == 'available']
    errors = [v for v in settled.values() if v['status'] == 'error']
    assert (len(available), len(errors)) == (expected, CREATES - expected)
    for volume in errors:
        assert volume['os-vol-host-attr:host'] is None
        assert capacity.no_valid_backend(stack, volume['id'])  # waits for the message
        assert capacity.user_messages(stack, volume['id']) == [
            (capacity.NO_VALID_BACKEND, capacity.NO_VALID_BACKEND_MESSAGE)]
    assert capacity.pool_claim(stack) == expected * SIZE
    # The race is real: the creates were shared among the schedulers.
    assert _schedulers_that_worked(stack, ids) >= 2

    capacity.delete(stack, [v['id'] for v in available])
    assert capacity.pool_claim(stack) == 0
    assert 'No capacity drift.' in stack.capacity_check()
