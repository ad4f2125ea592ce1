"""Volume service create_group/delete_group: the group settles in one fenced step with its
workers row, its members are deleted through the volume delete path (quota and capacity
given back), and the groups quota goes back with the group."""

import pytest
import sqlalchemy as sa

from cinderlike import quota
from cinderlike.db import group_types as db_group_types
from cinderlike.db import groups as db_groups
from cinderlike.db import volumes as db_volumes
from cinderlike.db import workers as db_workers
from cinderlike.db.models import Group, utcnow
from cinderlike.drivers.volume import base
from cinderlike.volume import recovery
from tests.fixtures import daemons
from tests.unit.volume.conftest import (
    POOL,
    PROJECT,
    add_volume,
    claimed,
    ctx,
    notified,
    usage,
    workers,
)


def _group(db, *, status='creating') -> Group:
    gtype = db_group_types.create(db, name='gt')
    with db.writer() as s:
        reservations = quota.reserve(db, ctx(), conf=daemons.make_conf(), project_id=PROJECT,
                                     deltas={'groups': 1}, session=s)
        group = db_groups.create(db, session=s, volume_type_ids=[], values={
            'project_id': PROJECT, 'group_type_id': gtype.id, 'availability_zone': 'nova',
            'host': POOL})
        quota.commit(db, ctx(), reservations, session=s)
        s.execute(sa.update(Group).where(Group.id == group.id).values(status=status))
    return db_groups.get(db, group_id=group.id)


def _member(manager, db, group, size=1):
    """An available member volume the backend holds (launched: it holds its claim)."""
    volume = add_volume(db, status='available', size=size, group_id=group.id,
                        launched_at=utcnow())
    manager.driver.create_volume(base.VolumeRef.of(volume))
    return volume


def test_create_makes_the_group_available_and_notifies(manager, db):
    group = _group(db)
    manager.create_group(ctx(), group_id=group.id)
    assert db_groups.get(db, group_id=group.id).status == 'available'
    assert workers(db) == []
    assert notified()[-2:] == ['group.create.start', 'group.create.end']


def test_a_driver_failure_leaves_the_group_in_error(manager, db):
    group = _group(db)

    def refuse(group_id):
        raise RuntimeError('backend down')
    manager.driver.create_group = refuse
    manager.create_group(ctx(), group_id=group.id)
    assert db_groups.get(db, group_id=group.id).status == 'error'
    assert workers(db) == []


def test_a_group_no_longer_creating_is_left_alone(manager, db):
    group = _group(db, status='available')
    manager.create_group(ctx(), group_id=group.id)
    assert db_groups.get(db, group_id=group.id).status == 'available'


def test_delete_removes_members_then_the_group_and_gives_quota_back(manager, db):
    group = _group(db, status='available')
    members = [_member(manager, db, group, size=2) for _ in range(2)]
    db_groups.begin_delete(db, group_id=group.id, project_id=None, delete_volumes=True)
    assert claimed(db) == 4
    manager.delete_group(ctx(), group_id=group.id)
    assert db_groups.volume_ids(db, group_ids=[group.id])[group.id] == []
    with db.reader() as s:
        assert s.get(Group, group.id).deleted
    assert usage(db, 'groups') == (0, 0)
    assert usage(db, 'volumes') == (0, 0)
    assert claimed(db) == 0
    assert workers(db) == []
    assert not any(manager.driver.has_volume(base.VolumeRef.of(v)) for v in members)
    assert 'group.delete.end' in notified()


def test_a_member_that_fails_leaves_the_group_error_deleting(manager, db):
    group = _group(db, status='available')
    volume = _member(manager, db, group)

    def refuse(ref):
        raise RuntimeError('busy disk')
    manager.driver.delete_volume = refuse
    db_groups.begin_delete(db, group_id=group.id, project_id=None, delete_volumes=True)
    manager.delete_group(ctx(), group_id=group.id)
    assert db_groups.get(db, group_id=group.id).status == 'error_deleting'
    assert db_volumes.get(db, volume_id=volume.id).status == 'error_deleting'
    assert usage(db, 'groups') == (1, 0)
    assert workers(db) == []



def _updating(db, group):
    with db.writer() as s:
        s.execute(sa.update(Group).where(Group.id == group.id).values(status='updating'))


def test_update_records_the_membership_with_available(manager, db):
    group = _group(db, status='available')
    leaving = _member(manager, db, group)
    joining = add_volume(db, status='available', launched_at=utcnow())
    _updating(db, group)
    manager.update_group(ctx(), group_id=group.id, add_volumes=[joining.id],
                         remove_volumes=[leaving.id])
    assert db_groups.get(db, group_id=group.id).status == 'available'
    assert db_groups.volume_ids(db, group_ids=[group.id])[group.id] == [joining.id]
    assert workers(db) == []
    assert notified()[-2:] == ['group.update.start', 'group.update.end']


def test_a_volume_taken_by_another_group_meanwhile_is_skipped(manager, db):
    group = _group(db, status='available')
    joining = add_volume(db, status='available', group_id='someone-else')
    _updating(db, group)
    manager.update_group(ctx(), group_id=group.id, add_volumes=[joining.id], remove_volumes=[])
    assert db_groups.volume_ids(db, group_ids=[group.id])[group.id] == []
    assert db_volumes.get(db, volume_id=joining.id).group_id == 'someone-else'


def test_a_driver_failure_leaves_the_group_error_and_members_as_they_were(manager, db):
    group = _group(db, status='available')
    joining = add_volume(db, status='available')

    def refuse(group_id, add, remove):
        raise RuntimeError('array refused')
    manager.driver.update_group = refuse
    _updating(db, group)
    manager.update_group(ctx(), group_id=group.id, add_volumes=[joining.id], remove_volumes=[])
    assert db_groups.get(db, group_id=group.id).status == 'error'
    assert db_volumes.get(db, volume_id=joining.id).group_id is None


def test_a_group_deleted_while_updating_gets_no_member(manager, db):
    """delete-volumes may start while an update is in flight: the update then writes
    nothing, so no volume joins a group being deleted."""
    group = _group(db, status='available')
    joining = add_volume(db, status='available')
    _updating(db, group)
    db_groups.begin_delete(db, group_id=group.id, project_id=None, delete_volumes=True)
    manager.update_group(ctx(), group_id=group.id, add_volumes=[joining.id], remove_volumes=[])
    assert db_groups.get(db, group_id=group.id).status == 'deleting'
    assert db_volumes.get(db, volume_id=joining.id).group_id is None


def _held(db, group, status, service_id):
    db_workers.begin_for(db, db_groups.MACHINE, row_id=group.id, status=status,
                         service_id=service_id)


@pytest.mark.parametrize('status, settled', [('creating', 'error'), ('updating', 'error')])
def test_startup_cleanup_settles_our_interrupted_groups(manager, db, status, settled):
    group = _group(db, status=status)
    _held(db, group, status, manager.service_id)
    assert recovery.do_cleanup(manager, ctx(), recovery.own_request(manager)) == 1
    assert db_groups.get(db, group_id=group.id).status == settled
    assert workers(db) == []


def test_startup_cleanup_resumes_our_group_delete(manager, db):
    group = _group(db, status='available')
    member = _member(manager, db, group)
    db_groups.begin_delete(db, group_id=group.id, project_id=None, delete_volumes=True)
    _held(db, group, 'deleting', manager.service_id)
    recovery.do_cleanup(manager, ctx(), recovery.own_request(manager))
    with db.reader() as s:
        assert s.get(Group, group.id).deleted
    assert db_groups.volume_ids(db, group_ids=[group.id])[group.id] == []
    assert not manager.driver.has_volume(base.VolumeRef.of(member))
    assert usage(db, 'groups') == (0, 0) and workers(db) == []
