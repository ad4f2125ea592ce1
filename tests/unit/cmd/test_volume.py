"""cmd/volume.py: one service per enabled backend, refused without enabled_backends."""

import pytest

from cinderlike import exception
from cinderlike.cmd import volume
from cinderlike.conf import volume as volume_conf
from tests.fixtures import daemons


def test_no_enabled_backends_is_refused_with_cinders_message():
    with pytest.raises(exception.NoEnabledBackends, match='enabled_backends'):
        volume.backend_services(daemons.make_conf())


def test_one_service_per_backend_named_host_at_backend():
    conf = daemons.make_conf(host='node1', enabled_backends=['lvm', 'ceph'])
    volume_conf.register_backend(conf, 'ceph')
    conf.set_override('backend_host', 'shared', group='ceph')
    services = volume.backend_services(conf)
    assert [s.host for s in services] == ['node1@lvm', 'shared@ceph']
    assert {s.binary for s in services} == {'cinder-volume'}
