"""One Keystone and one four-daemon stack with auth_strategy = keystone (RabbitMQ + PostgreSQL,
fake driver on backends b1 and b2) for every test here; clients log in through the catalog."""

import uuid

import pytest

from tests.fixtures import keystone as keystone_fixture

STARTUP = 90  # seconds for four Python daemons to import, connect, register and report


@pytest.fixture(scope='package')
def stack(tmp_path_factory, postgresql_server_url, rabbit_url):
    """The stack, configured for the Keystone started alongside (stack.keystone)."""
    with keystone_fixture.deployed_with_keystone(
            tmp_path_factory.mktemp('keystone'), server_url=postgresql_server_url,
            transport_url=rabbit_url, timeout=STARTUP) as stack:
        yield stack


@pytest.fixture(scope='package')
def keystone(stack):
    return stack.keystone


@pytest.fixture
def name():
    """A fresh name, so tests sharing the stack never meet."""
    return f'cl-{uuid.uuid4().hex[:8]}'
