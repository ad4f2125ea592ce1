"""One four-daemon stack (RabbitMQ + PostgreSQL, fake driver on backends b1 and b2) for every
client test, and the clients pointed at it with noauth."""

import uuid

import pytest

from tests.functional.e2e.stack import deployed

STARTUP = 90  # seconds for four Python daemons to import, connect, register and report


@pytest.fixture(scope='package')
def stack(tmp_path_factory, postgresql_server_url, rabbit_url):
    with deployed(tmp_path_factory.mktemp('clients'), server_url=postgresql_server_url,
                  transport_url=rabbit_url, timeout=STARTUP) as stack:
        yield stack


@pytest.fixture
def name():
    """A fresh name, so tests sharing the stack never meet."""
    return f'cl-{uuid.uuid4().hex[:8]}'
