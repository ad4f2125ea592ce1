"""db/clusters.py: rows kept by the services, the members' summary, removal and volume renames."""

import datetime

import pytest
import sqlalchemy as sa

from cinderlike import exception
from cinderlike.db import clusters, services
from cinderlike.db import volumes as db_volumes
from cinderlike.db.models import Cluster, Group, Service, Volume, VolumeType, utcnow

DOWN = 60
TYPE_ID = '00000000-0000-0000-0000-000000000001'


def _service(db, host, *, cluster=None, binary='cinder-volume', age=0):
    row = services.register(db, host=host, binary=binary, topic=binary,
                            availability_zone='nova', cluster_name=cluster)
    beat = utcnow() - datetime.timedelta(seconds=age)
    with db.writer() as session:
        session.execute(sa.update(Service).where(Service.id == row.id).values(
            created_at=beat, updated_at=beat))
    return row


def _volume(db, host, cluster=None, status='available'):
    with db.writer() as session:
        if session.get(VolumeType, TYPE_ID) is None:
            session.add(VolumeType(id=TYPE_ID, name='t'))
    return db_volumes.create(db, values={'host': host, 'cluster_name': cluster, 'size': 1,
                                         'status': status, 'volume_type_id': TYPE_ID}).id


def _volume_row(db, volume_id):
    with db.reader() as session:
        return session.get(Volume, volume_id)


def test_ensure_creates_once(db):
    assert clusters.ensure(db, name='c1@lvm', binary='cinder-volume') is True
    assert clusters.ensure(db, name='c1@lvm', binary='cinder-volume') is False
    assert clusters.ensure(db, name='c1@lvm', binary='cinder-backup') is True
    with db.reader() as session:
        assert session.scalar(sa.select(sa.func.count(Cluster.id))) == 2


def test_summary_counts_live_members(db):
    clusters.ensure(db, name='c1@lvm', binary='cinder-volume')
    _service(db, 'n1@lvm', cluster='c1@lvm')
    _service(db, 'n2@lvm', cluster='c1@lvm', age=600)
    gone = _service(db, 'n3@lvm', cluster='c1@lvm')
    services.soft_delete(db, gone.id)
    _service(db, 'n4', cluster='c1@lvm', binary='cinder-backup')
    summary = clusters.get(db, name='c1@lvm', down_time=DOWN)
    assert (summary.num_hosts, summary.num_down_hosts, summary.is_up) == (2, 1, True)
    assert utcnow() - summary.last_heartbeat < datetime.timedelta(seconds=DOWN)


def test_cluster_without_live_members_is_down(db):
    clusters.ensure(db, name='c1@lvm', binary='cinder-volume')
    _service(db, 'n1@lvm', cluster='c1@lvm', age=600)
    summary = clusters.get(db, name='c1@lvm', down_time=DOWN)
    assert (summary.is_up, summary.num_hosts, summary.num_down_hosts) == (False, 1, 1)
    clusters.ensure(db, name='empty@lvm', binary='cinder-volume')
    empty = clusters.get(db, name='empty@lvm', down_time=DOWN)
    assert (empty.is_up, empty.num_hosts, empty.last_heartbeat) == (False, 0, None)


@pytest.mark.parametrize('filters, names', [
    ({}, ['c1@lvm', 'c2@lvm', 'c3@nfs']),
    ({'name': 'c1'}, ['c1@lvm']),
    ({'name': 'c1@lvm#pool'}, []),
    ({'is_up': True}, ['c1@lvm']),
    ({'is_up': False}, ['c2@lvm', 'c3@nfs']),
    ({'disabled': True}, ['c2@lvm']),
    ({'num_hosts': 2}, ['c1@lvm']),
    ({'num_down_hosts': 1}, ['c1@lvm', 'c2@lvm']),
    ({'binary': 'cinder-backup'}, []),
])
def test_get_all_filters(db, filters, names):
    for name in ('c1@lvm', 'c2@lvm', 'c3@nfs'):
        clusters.ensure(db, name=name, binary='cinder-volume')
    _service(db, 'n1@lvm', cluster='c1@lvm')
    _service(db, 'n2@lvm', cluster='c1@lvm', age=600)
    _service(db, 'n3@lvm', cluster='c2@lvm', age=600)
    clusters.set_disabled(db, cluster_id=clusters.get(db, name='c2@lvm', down_time=DOWN)
                          .cluster.id, disabled=True, reason='maint')
    found = clusters.get_all(db, down_time=DOWN, filters=filters)
    assert [s.cluster.name for s in found] == names


def test_get_missing_names_the_lookup(db):
    with pytest.raises(exception.ClusterNotFound) as caught:
        clusters.get(db, name='nope', down_time=DOWN)
    assert str(caught.value) == (
        "Cluster {'binary': 'cinder-volume', 'name': 'nope'} could not be found.")


def test_disabled_services_follow_their_cluster(db):
    clusters.ensure(db, name='c1@lvm', binary='cinder-volume')
    _service(db, 'n1@lvm', cluster='c1@lvm')
    alone = _service(db, 'n2@lvm')
    services.set_disabled(db, host='n1@lvm', binary='cinder-volume', disabled=True)
    enabled = {s.host for s in services.get_all(db, disabled=False)}
    assert enabled == {'n1@lvm', 'n2@lvm'}  # n1's own flag does not count: its cluster's does
    clusters.set_disabled(db, cluster_id=clusters.get(db, name='c1@lvm', down_time=DOWN)
                          .cluster.id, disabled=True, reason=None)
    services.set_disabled(db, host=alone.host, binary='cinder-volume', disabled=True)
    assert {s.host for s in services.get_all(db, disabled=True)} == {'n1@lvm', 'n2@lvm'}
    assert services.get_all(db, disabled=False) == []


def test_remove_refuses_while_hosts_remain_then_recursive(db):
    clusters.ensure(db, name='c1@lvm', binary='cinder-volume')
    _service(db, 'n1@lvm', cluster='c1@lvm')
    _service(db, 'n2@lvm', cluster='c1@lvm')
    with pytest.raises(exception.ClusterHasHosts):
        clusters.remove(db, name='c1@lvm', binary='cinder-volume')
    assert clusters.get(db, name='c1@lvm', down_time=DOWN).num_hosts == 2
    assert clusters.remove(db, name='c1@lvm', binary='cinder-volume', recursive=True) == 2
    assert services.get_all(db) == []
    with pytest.raises(exception.ClusterNotFound):
        clusters.get(db, name='c1@lvm', down_time=DOWN)
    # The name is free again for a new cluster.
    assert clusters.ensure(db, name='c1@lvm', binary='cinder-volume') is True


def test_remove_missing(db):
    with pytest.raises(exception.ClusterNotFound):
        clusters.remove(db, name='c1@lvm', binary='cinder-volume')


def test_include_volumes_keeps_backend_and_pool(db):
    mine = _volume(db, 'n1@lvm#fast')
    other_backend = _volume(db, 'n1@nfs#p')
    other_host = _volume(db, 'n10@lvm#fast')
    assert clusters.include_volumes(db, host='n1@lvm', cluster_name='c1@lvm') == 1
    assert _volume_row(db, mine).cluster_name == 'c1@lvm#fast'
    assert _volume_row(db, other_backend).cluster_name is None
    assert _volume_row(db, other_host).cluster_name is None


def test_include_groups_keeps_backend_and_pool(db):
    with db.writer() as s:
        s.add_all([Group(id='mine', host='n1@lvm#fast', status='available'),
                   Group(id='theirs', host='n10@lvm#fast', status='available')])
    assert clusters.include_groups(db, host='n1@lvm', cluster_name='c1@lvm') == 1
    with db.reader() as s:
        assert s.get(Group, 'mine').cluster_name == 'c1@lvm#fast'
        assert s.get(Group, 'theirs').cluster_name is None


def test_rename_partial_and_full(db):
    first = _volume(db, 'n1@lvm#fast', 'c1@lvm#fast')
    second = _volume(db, 'n2@lvm#slow', 'c1@lvm#slow')
    untouched = _volume(db, 'n3@lvm#fast', 'c10@lvm#fast')
    assert clusters.rename_volumes(db, current='c1', new='c2') == 2
    assert _volume_row(db, first).cluster_name == 'c2@lvm#fast'
    assert _volume_row(db, second).cluster_name == 'c2@lvm#slow'
    assert _volume_row(db, untouched).cluster_name == 'c10@lvm#fast'
    assert clusters.rename_volumes(db, current='c2@lvm', new='c3@lvm#only',
                                   partial=False) == 2
    assert _volume_row(db, first).cluster_name == 'c3@lvm#only'
    assert clusters.rename_volumes(db, current='nothing', new='x') == 0


def test_adopt_volume_keeps_the_pool(db):
    clustered = _volume(db, 'n1@lvm#fast', 'c1@lvm#fast', status='creating')
    plain = _volume(db, 'n1@lvm#fast', status='creating')
    created = _volume(db, 'n1@lvm#fast', 'c1@lvm#fast')
    assert clusters.adopt_volume(db, volume_id=clustered, host='n2@lvm') is True
    assert _volume_row(db, clustered).host == 'n2@lvm#fast'
    assert clusters.adopt_volume(db, volume_id=clustered, host='n2@lvm') is False
    assert clusters.adopt_volume(db, volume_id=plain, host='n2@lvm') is False
    assert _volume_row(db, plain).host == 'n1@lvm#fast'
    assert clusters.adopt_volume(db, volume_id=created, host='n2@lvm') is False
