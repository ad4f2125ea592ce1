"""Fixtures shared by the functional suites."""

import pytest

from cinderlike import conf as cl_conf
from tests.fixtures import daemons


@pytest.fixture
def rabbit_conf(rabbit_url):
    """A fresh configuration on the test's RabbitMQ (calls time out after 10 s); the
    transports it opened are closed after the test."""
    conf = cl_conf.new_conf()
    conf([], default_config_files=[])
    conf.set_override('transport_url', rabbit_url)
    conf.set_override('rpc_response_timeout', 10)
    yield conf
    daemons.close_transports()
