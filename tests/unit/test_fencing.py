"""Self-fencing: a clustered service whose heartbeats fail past service_down_time stops
consuming RPC until a heartbeat lands again (cinderlike/fencing.py driven by service.py)."""

import oslo_messaging as messaging
import pytest
import sqlalchemy as sa

from cinderlike import context, fencing, service
from cinderlike.conf import volume as volume_conf
from cinderlike.volume import manager as volume_manager
from cinderlike.volume import rpcapi as volume_rpcapi
from tests.fixtures import daemons
from tests.fixtures.clock import Clock


def test_fences_once_past_down_time_and_resumes_on_the_next_heartbeat():
    clock = Clock()
    fence = fencing.HeartbeatFence(down_time=lambda: 4, clock=clock)
    clock.now += 3
    assert not fence.failed()
    clock.now += 2
    assert fence.failed() and fence.fenced
    assert not fence.failed()  # already fenced: nothing new to do
    assert fence.succeeded() and not fence.fenced
    assert not fence.succeeded()


class Unreachable:
    """The service's database while the network to it is cut."""

    def writer(self, session=None):
        raise sa.exc.OperationalError('UPDATE services', {}, Exception('connection refused'))


@pytest.fixture
def conf():
    conf = daemons.make_conf(report_interval=3600, periodic_interval=3600,
                             periodic_fuzzy_delay=0, host='node1', service_down_time=4,
                             rpc_response_timeout=1)
    conf.set_override('cluster', 'cl1')
    volume_conf.register_backend(conf, 'lvm1')
    conf.set_override('volume_driver', 'fake', group='lvm1')
    yield conf
    daemons.close_transports()


def _answers(conf) -> bool:
    try:
        volume_rpcapi.VolumeAPI(conf).get_capabilities(context.get_admin_context(),
                                                       host='node1@lvm1')
    except messaging.MessagingTimeout:
        return False
    return True


def test_a_clustered_service_stops_taking_work_while_its_heartbeat_fails(conf, db):
    clock = Clock()
    svc = service.Service(conf, host='node1@lvm1', manager_cls=volume_manager.VolumeManager,
                          manager_kwargs={'backend': 'lvm1'}, db=db, clock=clock)
    svc.start()
    try:
        assert _answers(conf)
        svc._db = Unreachable()
        clock.now += 3
        svc.report_state()
        assert _answers(conf)  # not down yet for its peers
        clock.now += 2
        svc.report_state()
        assert not _answers(conf)
        svc._db = db
        svc.report_state()
        assert _answers(conf)
    finally:
        svc.stop()
