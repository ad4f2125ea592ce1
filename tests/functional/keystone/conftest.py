"""One Keystone and one four-daemon stack with auth_strategy = keystone (RabbitMQ + PostgreSQL,
fake driver on backends b1 and b2) for every test here; clients log in through the catalog."""

import contextlib
import uuid

import pytest

from tests.fixtures import keystone as keystone_fixture
from tests.functional.e2e.stack import Stack, deployed

STARTUP = 90  # seconds for four Python daemons to import, connect, register and report


@pytest.fixture(scope='package')
def stack(tmp_path_factory, postgresql_server_url, rabbit_url):
    """The stack, configured for the Keystone started alongside (stack.keystone)."""
    workdir = tmp_path_factory.mktemp('keystone-stack')
    keystone_dir = tmp_path_factory.mktemp('keystone')

    def configure(stack: Stack):
        stack.keystone = keystone_context.enter_context(
            keystone_fixture.running(keystone_dir, api_url=stack.api_url))
        stack.use_keystone(stack.keystone)

    with contextlib.ExitStack() as keystone_context, deployed(
            workdir, server_url=postgresql_server_url, transport_url=rabbit_url,
            configure=configure, timeout=STARTUP) as stack:
        yield stack


@pytest.fixture(scope='package')
def keystone(stack):
    return stack.keystone


@pytest.fixture
def name():
    """A fresh name, so tests sharing the stack never meet."""
    return f'cl-{uuid.uuid4().hex[:8]}'
