"""os-migrate_volume and os-retype end to end in one process: scheduler and two file
backends, the bytes compared by sha256 after the move, the claims and quota followed."""

import pytest

from cinderlike import exception
from cinderlike.api.operations import migrations as ops
from cinderlike.db import pools as db_pools
from tests.fixtures import daemons
from tests.unit.volume.conftest import ctx, row, usage, workers
from tests.unit.volume.migration_stack import (
    claims,
    digest,
    exists,
    make_type,
    pool_of,
    run_stack,
    volume_on,
    write_pattern,
)

pytestmark = pytest.mark.qemu_img


@pytest.fixture
def stack(conf, db, tmp_path):
    yield from run_stack(conf, db, tmp_path)


def _settled(stack, volume_id):
    daemons.wait_for(lambda: row(stack.db, volume_id).migration_status in ('success', 'error')
                     and not workers(stack.db), timeout=30)
    return row(stack.db, volume_id)


def _gone(stack, volume_id):
    daemons.wait_for(lambda: row(stack.db, volume_id).deleted, timeout=20)


def test_host_assisted_migration_moves_the_bytes_and_the_claim(stack):
    volume = volume_on(stack, 'b1', size=1)
    old_path = stack.path(volume.id)
    before = write_pattern(old_path, seed=b'offline')
    ops.migrate_volume(stack.conf, stack.db, stack.rpc, ctx(), volume=volume,
                       host=pool_of('b2'), cluster_name=None, force_host_copy=True,
                       lock_volume=True)
    assert row(stack.db, volume.id).status == 'maintenance'
    done = _settled(stack, volume.id)
    assert (done.migration_status, done.status, done.host) == ('success', 'available',
                                                             pool_of('b2'))
    assert done.name_id != volume.id and digest(stack.path(volume.id)) == before
    target_id = done.name_id
    _gone(stack, target_id)
    assert not exists(old_path)
    assert claims(stack.db) == {pool_of('b1'): 0, pool_of('b2'): 1}
    assert db_pools.drift(stack.db) == [] and workers(stack.db) == []
    assert usage(stack.db, 'volumes') == (1, 0) and usage(stack.db, 'gigabytes') == (1, 0)


def test_migration_to_its_own_backend_is_refused_and_nothing_changes(stack):
    volume = volume_on(stack, 'b1')
    with pytest.raises(exception.InvalidVolume, match='destination host/cluster must be'):
        ops.migrate_volume(stack.conf, stack.db, stack.rpc, ctx(), volume=volume,
                           host=pool_of('b1'), cluster_name=None, force_host_copy=False,
                           lock_volume=False)
    assert row(stack.db, volume.id).migration_status is None
    with pytest.raises(exception.InvalidHost, match="No available service named 'node9@x'"):
        ops.migrate_volume(stack.conf, stack.db, stack.rpc, ctx(), volume=volume,
                           host='node9@x', cluster_name=None, force_host_copy=False,
                           lock_volume=False)
    assert claims(stack.db) == {pool_of('b1'): 1, pool_of('b2'): 0}


def test_retype_on_the_same_backend_moves_per_type_quota(stack, db):
    gold = make_type(db, 'gold', volume_backend_name='b1')
    volume = volume_on(stack, 'b1', size=2)
    before = write_pattern(stack.path(volume.id), seed=b'retype')
    ops.retype(stack.conf, db, stack.rpc, None, ctx(), volume=volume, new_type='gold',
               migration_policy=None)
    daemons.wait_for(lambda: row(db, volume.id).status == 'available', timeout=20)
    done = row(db, volume.id)
    assert (done.volume_type_id, done.host, done.migration_status) == (gold.id, pool_of('b1'),
                                                                    None)
    assert digest(stack.path(volume.id)) == before
    assert usage(db, 'volumes_gold') == (1, 0) and usage(db, 'gigabytes_gold') == (2, 0)
    assert usage(db, 'volumes___DEFAULT__') == (0, 0)
    assert usage(db, 'gigabytes___DEFAULT__') == (0, 0)
    assert usage(db, 'gigabytes') == (2, 0) and workers(db) == []


def test_retype_that_needs_a_move_is_refused_with_policy_never(stack, db):
    make_type(db, 'elsewhere', volume_backend_name='b2')
    volume = volume_on(stack, 'b1', size=1)
    ops.retype(stack.conf, db, stack.rpc, None, ctx(), volume=volume, new_type='elsewhere',
               migration_policy='never')
    daemons.wait_for(lambda: row(db, volume.id).status != 'retyping', timeout=20)
    done = row(db, volume.id)
    assert (done.status, done.volume_type_id, done.host) == ('available',
                                                            volume.volume_type_id,
                                                            pool_of('b1'))
    assert usage(db, 'volumes_elsewhere') == (0, 0)
    assert usage(db, 'volumes___DEFAULT__') == (1, 0)
    assert claims(db) == {pool_of('b1'): 1, pool_of('b2'): 0}


def test_retype_on_demand_migrates_with_the_bytes(stack, db):
    elsewhere = make_type(db, 'elsewhere', volume_backend_name='b2')
    volume = volume_on(stack, 'b1', size=1)
    before = write_pattern(stack.path(volume.id), seed=b'on-demand')
    ops.retype(stack.conf, db, stack.rpc, None, ctx(), volume=volume, new_type='elsewhere',
               migration_policy='on-demand')
    done = _settled(stack, volume.id)
    assert (done.status, done.volume_type_id, done.host, done.migration_status) == (
        'available', elsewhere.id, pool_of('b2'), 'success')
    assert digest(stack.path(volume.id)) == before
    _gone(stack, done.name_id)
    assert claims(db) == {pool_of('b1'): 0, pool_of('b2'): 1} and db_pools.drift(db) == []
    assert usage(db, 'volumes_elsewhere') == (1, 0) and usage(db, 'gigabytes_elsewhere') == (1, 0)
    assert usage(db, 'volumes___DEFAULT__') == (0, 0) and usage(db, 'volumes') == (1, 0)
