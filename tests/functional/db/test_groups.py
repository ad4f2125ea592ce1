"""Group races on real PostgreSQL and MariaDB: a group's delete, a volume created into it,
a volume added to it and its group snapshots all take the group's row lock or CAS its
status, so exactly one of two conflicting requests wins and the loser leaves nothing behind
(no row, no quota); two group snapshots of one group both succeed, each whole."""

import uuid

import pytest
import sqlalchemy as sa

from cinderlike import context, exception
from cinderlike.api.flows.create_volume import CreateRequest
from cinderlike.api.operations import group_snapshots as group_snapshot_ops
from cinderlike.api.operations import groups as group_ops
from cinderlike.api.operations import volumes as volume_ops
from cinderlike.db import group_snapshots as db_group_snapshots
from cinderlike.db import group_types as db_group_types
from cinderlike.db import groups as db_groups
from cinderlike.db import volume_types as db_types
from cinderlike.db import volumes as db_volumes
from cinderlike.db.models import Group, GroupSnapshot, QuotaUsage
from tests.fixtures import daemons
from tests.fixtures.race import race, split
from tests.functional.db.test_snapshots import Casts

HOST = 'node@fake#pool'


@pytest.fixture(scope='module')
def conf():
    return daemons.make_conf()


@pytest.fixture(scope='module')
def vtype(db):
    return db_types.create(db, name=f'gv-{uuid.uuid4().hex[:6]}')


@pytest.fixture
def project():
    return uuid.uuid4().hex


class Enforcer:
    """Every rule passes: policies are not what these races are about."""

    def authorize(self, *args, **kwargs):
        return True


def _ctx(project):
    return context.RequestContext(user_id='u1', project_id=project, is_admin=False)


def _group(db, project, vtype) -> Group:
    gtype = db_group_types.create(db, name=f'gt-{uuid.uuid4().hex[:8]}')
    with db.writer() as s:
        group = db_groups.create(db, session=s, volume_type_ids=[vtype.id], values={
            'project_id': project, 'user_id': 'u1', 'group_type_id': gtype.id,
            'availability_zone': 'nova'})
        s.execute(sa.update(Group).where(Group.id == group.id).values(
            status='available', host=HOST))
    return db_groups.get(db, group_id=group.id)


def _volume(db, project, vtype, **values):
    return db_volumes.create(db, values={
        'status': 'available', 'size': 1, 'host': HOST, 'project_id': project,
        'volume_type_id': vtype.id, 'attach_status': 'detached', **values})


def _usage(db, project, resource) -> tuple[int, int]:
    with db.reader() as s:
        row = s.execute(sa.select(QuotaUsage.in_use, QuotaUsage.reserved).where(
            QuotaUsage.project_id == project, QuotaUsage.resource == resource)).first()
    return tuple(row) if row else (0, 0)


def _members(db, group_id):
    return db_groups.volume_ids(db, group_ids=[group_id])[group_id]


@pytest.mark.parametrize('attempt', range(6))
def test_group_delete_against_a_volume_created_into_it_one_wins(conf, db, vtype, project,
                                                                attempt):
    group = _group(db, project, vtype)
    request = CreateRequest(size=1, volume_type=vtype.name, group_id=group.id)
    deleted, created = race(
        lambda: group_ops.delete(conf, db, Casts(), _ctx(project), group_id=group.id,
                                 delete_volumes=False),
        lambda: volume_ops.create(conf, db, Casts(), Enforcer(), _ctx(project),
                                  request=request))
    status = db_groups.get(db, group_id=group.id).status
    if isinstance(created, Exception):
        assert deleted is None and status == 'deleting'
        assert isinstance(created, exception.InvalidGroup)
        assert _members(db, group.id) == [] and _usage(db, project, 'volumes') == (0, 0)
    else:
        assert isinstance(deleted, exception.InvalidGroup) and status == 'available'
        assert len(_members(db, group.id)) == 1 and _usage(db, project, 'volumes') == (1, 0)


@pytest.mark.parametrize('attempt', range(6))
def test_group_delete_against_a_volume_being_added_one_wins(conf, db, vtype, project, attempt):
    group = _group(db, project, vtype)
    volume = _volume(db, project, vtype)
    casts = Casts()
    deleted, added = race(
        lambda: group_ops.delete(conf, db, Casts(), _ctx(project), group_id=group.id,
                                 delete_volumes=False),
        lambda: group_ops.update(db, casts, _ctx(project), group_id=group.id,
                                 add_volumes=volume.id))
    status = db_groups.get(db, group_id=group.id).status
    winners, losers = split([deleted, added])
    assert len(winners) == 1 and isinstance(losers[0], exception.InvalidGroup)
    assert status == ('updating' if added is None else 'deleting')
    assert casts.sent == (['update_group'] if added is None else [])
    assert db_volumes.get(db, volume_id=volume.id).group_id is None


@pytest.mark.parametrize('attempt', range(6))
def test_two_group_snapshots_of_one_group_both_take_every_member(conf, db, vtype, project,
                                                                 attempt):
    group = _group(db, project, vtype)
    volumes = [_volume(db, project, vtype, group_id=group.id) for _ in range(3)]
    results = race(*[lambda: group_snapshot_ops.create(conf, db, Casts(), _ctx(project),
                                                       group_id=group.id)] * 2)
    winners, losers = split(results)
    assert losers == [] and len(winners) == 2
    for gsnap in winners:
        members = db_group_snapshots.members(db, group_snapshot_id=gsnap.id)
        assert sorted(s.volume_id for s in members) == sorted(v.id for v in volumes)
    assert _usage(db, project, 'snapshots') == (6, 0)


@pytest.mark.parametrize('attempt', range(6))
def test_group_delete_against_a_group_snapshot_one_wins(conf, db, vtype, project, attempt):
    group = _group(db, project, vtype)
    _volume(db, project, vtype, group_id=group.id)
    deleted, snapped = race(
        lambda: group_ops.delete(conf, db, Casts(), _ctx(project), group_id=group.id,
                                 delete_volumes=True),
        lambda: group_snapshot_ops.create(conf, db, Casts(), _ctx(project),
                                          group_id=group.id))
    status = db_groups.get(db, group_id=group.id).status
    with db.reader() as s:
        gsnaps = s.scalars(sa.select(GroupSnapshot).where(
            GroupSnapshot.group_id == group.id)).all()
    if isinstance(snapped, Exception):
        assert deleted is None and status == 'deleting' and gsnaps == []
        assert _usage(db, project, 'snapshots') == (0, 0)
    else:
        assert isinstance(deleted, exception.InvalidGroup) and status == 'available'
        assert len(gsnaps) == 1 and _usage(db, project, 'snapshots') == (1, 0)
