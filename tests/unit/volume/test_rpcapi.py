"""volume/rpcapi.py + the volume service's queues: host topic, cluster topic and fanout."""

import pytest

from cinderlike import context, service
from cinderlike.conf import volume as volume_conf
from cinderlike.scheduler import manager as scheduler_manager
from cinderlike.volume import manager as volume_manager
from cinderlike.volume import rpcapi
from tests.fixtures import daemons


def test_host_topic_drops_the_pool_and_addresses_the_host():
    api = rpcapi.VolumeAPI(daemons.make_conf())
    target = api._get_cctxt('node1@lvm#pool-a').target
    assert (target.topic, target.server) == ('cinder-volume.node1@lvm', 'node1')


def test_cluster_name_wins_over_host():
    api = rpcapi.VolumeAPI(daemons.make_conf())
    target = api._get_cctxt('node1@lvm#p', cluster_name='cl1@lvm#p').target
    assert (target.topic, target.server) == ('cinder-volume.cl1@lvm', 'cl1')


def test_fanout_goes_to_the_volume_topic():
    target = rpcapi.VolumeAPI(daemons.make_conf())._get_cctxt(fanout=True).target
    assert (target.topic, target.fanout) == ('cinder-volume', True)


class CountingVolumeManager(volume_manager.VolumeManager):
    """Counts publish_service_capabilities casts received."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.published = 0

    def publish_service_capabilities(self, context):
        self.published += 1
        super().publish_service_capabilities(context)


@pytest.fixture
def stack():
    """Two clustered members of backend lvm, one unclustered backend, and a scheduler."""
    conf = daemons.make_conf(report_interval=3600, periodic_interval=3600,
                             periodic_fuzzy_delay=0, cluster='cl1')
    volume_conf.register_backend(conf, 'lvm')
    conf.set_override('volume_driver', 'fake', group='lvm')
    db = daemons.make_db()
    # NOTE(order): the scheduler first, so its start-up request for reports (a fanout cast
    # while no volume service listens yet) adds nothing to the counts below.
    svcs = {'s1': service.Service(conf, host='s1',
                                  manager_cls=scheduler_manager.SchedulerManager, db=db,
                                  shared_transport=True)}
    for host in ('n1@lvm', 'n2@lvm'):
        svcs[host] = service.Service(conf, host=host, manager_cls=CountingVolumeManager,
                                     manager_kwargs={'backend': 'lvm'}, db=db,
                                     shared_transport=True)
    for svc in svcs.values():
        svc.start()
    yield conf, {h: s.manager for h, s in svcs.items()}
    for svc in svcs.values():
        svc.stop()
    daemons.close_transports()


def test_volume_services_listen_on_cinders_three_queues(stack):
    _, managers = stack
    assert managers['n1@lvm'].rpc_targets() == [
        ('cinder-volume', 'n1@lvm'), ('cinder-volume.n1@lvm', 'n1'),
        ('cinder-volume.cl1@lvm', 'cl1')]


def test_host_cluster_and_fanout_casts_reach_the_right_services(stack):
    conf, managers = stack
    api = rpcapi.VolumeAPI(conf)
    ctxt = context.get_admin_context()
    n1, n2 = managers['n1@lvm'], managers['n2@lvm']
    api._get_cctxt('n2@lvm#lvm').cast(ctxt, 'publish_service_capabilities')
    daemons.wait_for(lambda: n2.published == 1)
    assert n1.published == 0
    api._get_cctxt('n1@lvm', cluster_name='cl1@lvm').cast(ctxt, 'publish_service_capabilities')
    daemons.wait_for(lambda: n1.published + n2.published == 2)
    api.publish_service_capabilities(ctxt)
    daemons.wait_for(lambda: n1.published + n2.published == 4)
    assert n1.published >= 1 and n2.published >= 2
    # every member's reports reached the scheduler, under its own host
    scheduler = managers['s1']
    daemons.wait_for(lambda: all(scheduler.capabilities.get('volume', h) for h in
                                 ('n1@lvm', 'n2@lvm')))
    assert scheduler.capabilities.get('volume', 'n1@lvm').cluster_name == 'cl1@lvm'
