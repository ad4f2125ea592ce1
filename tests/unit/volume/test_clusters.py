"""The volume manager in a cluster: a member that takes a create owns the volume's host,
keeping its pool (Cinder's _set_resource_host)."""

import contextlib

import pytest

from cinderlike.drivers.volume import base
from cinderlike.volume import manager as volume_manager
from tests.unit.volume.conftest import HOST, RecordingScheduler, add_volume, ctx, row


@pytest.fixture
def member(conf, db):
    conf.set_override('cluster', 'cl1')
    mgr = volume_manager.VolumeManager(conf, host=HOST, db=db, backend='lvm')
    mgr.scheduler_api = RecordingScheduler()
    mgr.driver.do_setup(None)
    mgr.initialized = True
    return mgr


def test_the_member_that_creates_becomes_the_host(member, db):
    volume = add_volume(db, host='node2@lvm#lvm', claim=False, cluster_name='cl1@lvm#lvm')
    member.create_volume(ctx(), volume_id=volume.id, request_spec={}, filter_properties={})
    done = row(db, volume.id)
    assert (done.status, done.host, done.cluster_name) == (
        'available', f'{HOST}#lvm', 'cl1@lvm#lvm')


def test_a_volume_no_longer_creating_keeps_its_host(member, db):
    volume = add_volume(db, status='available', host='node2@lvm#lvm', claim=False,
                        cluster_name='cl1@lvm#lvm')
    member.create_volume(ctx(), volume_id=volume.id, request_spec={}, filter_properties={})
    assert row(db, volume.id).host == 'node2@lvm#lvm'


class RecordingCoordinator:
    """Stands in for the tooz coordinator: keeps the name of every lock taken."""

    def __init__(self):
        self.taken = []

    @contextlib.contextmanager
    def get_lock(self, name):
        self.taken.append(name)
        yield


def test_a_clone_holds_its_source_delete_lock(member, db):
    member.coordinator = RecordingCoordinator()
    source = add_volume(db, status='available', claim=False, cluster_name='cl1@lvm#lvm')
    member.driver.create_volume(base.VolumeRef.of(source))
    clone = add_volume(db, host='node2@lvm#lvm', claim=False, cluster_name='cl1@lvm#lvm',
                       source_volid=source.id)
    member.create_volume(ctx(), volume_id=clone.id, request_spec={'source_volid': source.id},
                         filter_properties={})
    assert member.coordinator.taken == [f'cinder-{source.id}-delete_volume']
    assert row(db, clone.id).status == 'available'
