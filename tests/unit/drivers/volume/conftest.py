"""A backend section for driver tests: its options registered the way the volume manager does."""

import pytest

from cinderlike.conf import volume as volume_conf
from tests.fixtures import daemons


@pytest.fixture
def backend_conf(tmp_path):
    """make(driver_opts, **options) -> the BackendConfiguration of section [b1]."""
    conf = daemons.make_conf(state_path=str(tmp_path))

    def make(driver_opts, **options):
        configuration = volume_conf.register_backend(conf, 'b1', driver_opts)
        for name, value in options.items():
            conf.set_override(name, value, group='b1')
        return configuration
    return make
