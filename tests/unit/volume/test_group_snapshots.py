"""Volume service group snapshots on the file driver (real qemu-img): every member's own
pattern is in its snapshot; a driver failure leaves everything `error`; delete gives the
quota back member by member."""

import hashlib
import os

import pytest
import sqlalchemy as sa

from cinderlike import quota
from cinderlike.api.operations import group_snapshots as group_snapshot_ops
from cinderlike.api.operations import group_sources
from cinderlike.db import group_snapshots as db_group_snapshots
from cinderlike.db import group_types as db_group_types
from cinderlike.db import groups as db_groups
from cinderlike.db import workers as db_workers
from cinderlike.db.models import Group, GroupSnapshot, Snapshot
from cinderlike.drivers.volume import base
from cinderlike.volume import recovery
from tests.fixtures import daemons
from tests.unit.volume.conftest import (
    POOL,
    PROJECT,
    add_volume,
    ctx,
    notified,
    row,
    usage,
    workers,
)
from tests.unit.volume.test_file_backend import file_manager  # noqa: F401 - fixture

pytestmark = pytest.mark.qemu_img

PATTERN_AT = 4096 * 7


def _group(db):
    gtype = db_group_types.create(db, name='gt')
    with db.writer() as s:
        group = db_groups.create(db, session=s, volume_type_ids=[], values={
            'project_id': PROJECT, 'group_type_id': gtype.id, 'host': POOL})
        s.execute(sa.update(Group).where(Group.id == group.id).values(status='available'))
    return db_groups.get(db, group_id=group.id)


def _write(mgr, db, volume_id, data: bytes) -> None:
    info = mgr.driver.initialize_connection(base.VolumeRef.of(row(db, volume_id)), {})
    with open(info['data']['device_path'], 'r+b') as disk:
        disk.seek(PATTERN_AT)
        disk.write(data)


def _read(path: str, size: int) -> bytes:
    with open(path, 'rb') as disk:
        disk.seek(PATTERN_AT)
        return disk.read(size)


def _group_snapshot(db, group, volumes):
    """What the API inserts: the group snapshot and a snapshot per member, quota used."""
    deltas = {'snapshots': len(volumes), 'gigabytes': sum(v.size for v in volumes)}
    with db.writer() as s:
        reservations = quota.reserve(db, ctx(), conf=daemons.make_conf(), project_id=PROJECT,
                                     deltas=deltas, session=s)
        gsnap, _ = db_group_snapshots.create(db, session=s, volumes=volumes, values={
            'group_id': group.id, 'user_id': 'u1', 'project_id': PROJECT, 'name': 'gs',
            'group_type_id': group.group_type_id})
        quota.commit(db, ctx(), reservations, session=s)
    return gsnap


@pytest.fixture
def members(file_manager, db):  # noqa: F811
    group = _group(db)
    volumes = []
    for index in range(2):
        volume = add_volume(db, size=1, group_id=group.id)
        file_manager.create_volume(ctx(), volume_id=volume.id, request_spec={},
                                   filter_properties={})
        _write(file_manager, db, volume.id, f'member {index} pattern'.encode() * 100)
        volumes.append(row(db, volume.id))
    return group, volumes


def test_every_member_snapshot_holds_its_own_pattern(file_manager, db, members):  # noqa: F811
    group, volumes = members
    gsnap = _group_snapshot(db, group, volumes)
    file_manager.create_group_snapshot(ctx(), group_snapshot_id=gsnap.id)
    assert db_group_snapshots.get(db, group_snapshot_id=gsnap.id).status == 'available'
    snaps = db_group_snapshots.members(db, group_snapshot_id=gsnap.id)
    assert {(s.status, s.progress) for s in snaps} == {('available', '100%')}
    for index, volume in enumerate(volumes):
        snap = next(s for s in snaps if s.volume_id == volume.id)
        path = file_manager.driver.snapshot_path(base.SnapshotRef.of(snap, volume))
        expected = f'member {index} pattern'.encode() * 100
        assert hashlib.sha256(_read(path, len(expected))).hexdigest() == \
            hashlib.sha256(expected).hexdigest()
    assert workers(db) == []
    assert notified()[-2:] == ['group_snapshot.create.start', 'group_snapshot.create.end']


def test_a_driver_failure_leaves_the_group_snapshot_and_members_error(file_manager, db,  # noqa: F811
                                                                      members):
    group, volumes = members

    def refuse(gs_id, refs):
        raise RuntimeError('array refused')
    file_manager.driver.create_group_snapshot = refuse
    gsnap = _group_snapshot(db, group, volumes)
    file_manager.create_group_snapshot(ctx(), group_snapshot_id=gsnap.id)
    assert db_group_snapshots.get(db, group_snapshot_id=gsnap.id).status == 'error'
    assert {s.status for s in db_group_snapshots.members(db, group_snapshot_id=gsnap.id)} == {
        'error'}
    assert usage(db, 'snapshots') == (2, 0)


def test_delete_removes_every_member_and_gives_the_quota_back(file_manager, db,  # noqa: F811
                                                              members):
    group, volumes = members
    gsnap = _group_snapshot(db, group, volumes)
    file_manager.create_group_snapshot(ctx(), group_snapshot_id=gsnap.id)
    paths = [file_manager.driver.snapshot_path(base.SnapshotRef.of(s, volumes[0]))
             for s in db_group_snapshots.members(db, group_snapshot_id=gsnap.id)]
    db_group_snapshots.begin_delete(db, group_snapshot_id=gsnap.id, project_id=None)
    file_manager.delete_group_snapshot(ctx(), group_snapshot_id=gsnap.id)
    with db.reader() as s:
        assert s.get(GroupSnapshot, gsnap.id).deleted
        assert s.scalars(sa.select(Snapshot).where(Snapshot.deleted.is_(False))).all() == []
    assert not any(os.path.exists(p) for p in paths)
    assert usage(db, 'snapshots') == (0, 0)
    assert workers(db) == []


def test_startup_cleanup_errors_an_interrupted_group_snapshot(file_manager, db,  # noqa: F811
                                                              members):
    group, volumes = members
    gsnap = _group_snapshot(db, group, volumes)
    db_workers.begin_for(db, db_group_snapshots.MACHINE, row_id=gsnap.id, status='creating',
                         service_id=file_manager.service_id)
    recovery.do_cleanup(file_manager, ctx(), recovery.own_request(file_manager))
    assert db_group_snapshots.get(db, group_snapshot_id=gsnap.id).status == 'error'
    assert {s.status for s in db_group_snapshots.members(db, group_snapshot_id=gsnap.id)} == {
        'error'}
    assert workers(db) == []


class _Casts:
    """The API's RPC clients, recording the volume cast."""

    class _Volume:
        def __init__(self):
            self.calls = []

        def create_group_from_src(self, ctx, **kwargs):
            self.calls.append(kwargs)

    def __init__(self):
        self.volume = self._Volume()


def test_a_group_from_the_group_snapshot_reads_every_pattern_back(file_manager, db,  # noqa: F811
                                                                  members, conf):
    group, volumes = members
    gsnap = _group_snapshot(db, group, volumes)
    file_manager.create_group_snapshot(ctx(), group_snapshot_id=gsnap.id)
    for volume in volumes:  # the sources change after the snapshot
        _write(file_manager, db, volume.id, b'overwritten later' * 100)
    casts = _Casts()
    new = group_sources.create_from_src(conf, db, casts, ctx(), name='copy',
                                        group_snapshot_id=gsnap.id)
    assert casts.volume.calls == [{'group_id': new.id, 'host': POOL, 'cluster_name': None}]
    file_manager.create_group_from_src(ctx(), group_id=new.id)
    assert db_groups.get(db, group_id=new.id).status == 'available'
    made = {row(db, v).snapshot_id: row(db, v)
            for v in db_groups.volume_ids(db, group_ids=[new.id])[new.id]}
    for snap in db_group_snapshots.members(db, group_snapshot_id=gsnap.id):
        index = [v.id for v in volumes].index(snap.volume_id)
        volume = made[snap.id]
        assert volume.status == 'available'
        expected = f'member {index} pattern'.encode() * 100
        got = _read(file_manager.driver.path(base.VolumeRef.of(volume)), len(expected))
        assert hashlib.sha256(got).hexdigest() == hashlib.sha256(expected).hexdigest()
    assert workers(db) == []


def test_a_group_from_a_source_group_copies_each_member(file_manager, db, members,  # noqa: F811
                                                        conf):
    group, volumes = members
    new = group_sources.create_from_src(conf, db, _Casts(), ctx(), source_group_id=group.id)
    file_manager.create_group_from_src(ctx(), group_id=new.id)
    assert db_groups.get(db, group_id=new.id).status == 'available'
    for volume_id in db_groups.volume_ids(db, group_ids=[new.id])[new.id]:
        copy = row(db, volume_id)
        index = [v.id for v in volumes].index(copy.source_volid)
        expected = f'member {index} pattern'.encode() * 100
        got = _read(file_manager.driver.path(base.VolumeRef.of(copy)), len(expected))
        assert got == expected


def test_a_group_snapshot_a_group_was_made_from_can_be_deleted(file_manager, db,  # noqa: F811
                                                               members, conf):
    group, volumes = members
    gsnap = _group_snapshot(db, group, volumes)
    file_manager.create_group_snapshot(ctx(), group_snapshot_id=gsnap.id)
    new = group_sources.create_from_src(conf, db, _Casts(), ctx(), group_snapshot_id=gsnap.id)
    file_manager.create_group_from_src(ctx(), group_id=new.id)
    group_snapshot_ops.delete(db, _DeleteCasts(file_manager), ctx(),
                              group_snapshot_id=gsnap.id)
    with db.reader() as s:
        assert s.get(GroupSnapshot, gsnap.id).deleted
    assert usage(db, 'snapshots') == (0, 0)


class _DeleteCasts:
    """The API's volume client, delivering delete_group_snapshot to *manager* at once."""

    def __init__(self, manager):
        self.volume = self
        self._manager = manager

    def delete_group_snapshot(self, ctx, *, group_snapshot_id, host, cluster_name):
        self._manager.delete_group_snapshot(ctx, group_snapshot_id=group_snapshot_id)
