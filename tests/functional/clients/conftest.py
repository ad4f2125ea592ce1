"""One four-daemon stack (RabbitMQ + PostgreSQL, fake driver on backends b1 and b2) for every
client test, and the clients pointed at it with noauth."""

import uuid

import pytest

from tests.fixtures.database import fresh_database
from tests.functional.e2e import capacity
from tests.functional.e2e.stack import Stack

STARTUP = 90  # seconds for four Python daemons to import, connect, register and report


@pytest.fixture(scope='package')
def stack(tmp_path_factory, postgresql_server_url, rabbit_url):
    with fresh_database(postgresql_server_url) as db_url:
        stack = Stack(tmp_path_factory.mktemp('clients'), db_url=db_url,
                      transport_url=rabbit_url)
        stack.update_config(scheduler_driver_init_wait_time=5)
        stack.run('cinderlike-manage', 'db', 'sync')
        try:
            stack.start_all(timeout=STARTUP)
            yield stack
            # Whatever the tests did, every pool's claim is its live volumes' sizes.
            assert 'No capacity drift.' in capacity.capacity_check(stack)
        finally:
            stack.close()


@pytest.fixture
def name():
    """A fresh name, so tests sharing the stack never meet."""
    return f'cl-{uuid.uuid4().hex[:8]}'
