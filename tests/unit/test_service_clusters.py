"""cinderlike/service.py with `[DEFAULT] cluster`: the clusters row, joining a cluster, and
drivers that cannot run Active-Active."""

import pytest

from cinderlike import exception, service
from cinderlike.conf import volume as volume_conf
from cinderlike.db import clusters as clusters_db
from cinderlike.db import services as services_db
from cinderlike.db import volume_types as db_types
from cinderlike.db import volumes as db_volumes
from cinderlike.drivers.volume import fake
from cinderlike.volume import manager as volume_manager
from tests.fixtures import daemons


class SoloDriver(fake.FakeDriver):
    """A driver that never declared Active-Active support."""

    SUPPORTS_ACTIVE_ACTIVE = False


@pytest.fixture
def conf():
    conf = daemons.make_conf(report_interval=3600, periodic_interval=3600,
                             periodic_fuzzy_delay=0, host='node1', cluster='cl1')
    volume_conf.register_backend(conf, 'lvm')
    conf.set_override('volume_driver', 'fake', group='lvm')
    yield conf
    daemons.close_transports()


def _service(conf, db, host):
    return service.Service(conf, host=host, manager_cls=volume_manager.VolumeManager,
                           manager_kwargs={'backend': 'lvm'}, db=db)


def _volume(db, host, cluster_name=None):
    vtype = db_types.create(db, name=f'type-{host}')
    return db_volumes.create(db, values={'host': host, 'cluster_name': cluster_name,
                                         'size': 1, 'status': 'available',
                                         'volume_type_id': vtype.id}).id


def _cluster_of(db, volume_id):
    return db_volumes.get(db, volume_id=volume_id).cluster_name


def test_two_members_share_one_cluster_row(conf, db):
    members = [_service(conf, db, host) for host in ('node1@lvm', 'node2@lvm')]
    for member in members:
        member.start()
    try:
        summary, = clusters_db.get_all(db, down_time=60)
        assert (summary.cluster.name, summary.cluster.binary) == ('cl1@lvm', 'cinder-volume')
        assert (summary.num_hosts, summary.num_down_hosts, summary.is_up) == (2, 0, True)
        assert summary.cluster.replication_status == 'not-capable'
        rows = services_db.get_all(db, binary='cinder-volume')
        assert {row.cluster_name for row in rows} == {'cl1@lvm'}
    finally:
        for member in members:
            member.stop()


def test_a_host_joining_a_cluster_brings_its_volumes(conf, db):
    conf.set_override('cluster', None)
    mine = _volume(db, 'node1@lvm#lvm')
    other = _volume(db, 'node2@lvm#lvm')
    alone = _service(conf, db, 'node1@lvm')
    alone.start()
    alone.stop()
    assert _cluster_of(db, mine) is None
    conf.set_override('cluster', 'cl1')
    joined = _service(conf, db, 'node1@lvm')
    joined.start()
    joined.stop()
    assert _cluster_of(db, mine) == 'cl1@lvm#lvm'
    assert _cluster_of(db, other) is None


def test_moving_to_another_cluster_moves_no_volumes(conf, db):
    first = _service(conf, db, 'node1@lvm')
    first.start()
    first.stop()
    later = _volume(db, 'node1@lvm#lvm', cluster_name='cl1@lvm#lvm')
    conf.set_override('cluster', 'cl2')
    moved = _service(conf, db, 'node1@lvm')
    moved.start()
    moved.stop()
    assert _cluster_of(db, later) == 'cl1@lvm#lvm'
    assert services_db.get(db, moved.service_id).cluster_name == 'cl2@lvm'
    assert {s.cluster.name for s in clusters_db.get_all(db, down_time=60)} == {
        'cl1@lvm', 'cl2@lvm'}


def test_a_driver_without_active_active_refuses_to_start_clustered(conf, db):
    conf.set_override('volume_driver', f'{__name__}.SoloDriver', group='lvm')
    member = _service(conf, db, 'node1@lvm')
    with pytest.raises(exception.VolumeDriverException) as caught:
        member.start()
    assert str(caught.value) == ('Active-Active configuration is not currently supported '
                                 f'by driver {__name__}.SoloDriver.')
    assert clusters_db.get_all(db, down_time=60) == []
    conf.set_override('cluster', None)
    solo = _service(conf, db, 'node1@lvm')
    solo.start()
    solo.stop()
    assert services_db.get(db, solo.service_id).cluster_name is None
