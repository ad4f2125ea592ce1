"""volume/retype.py through VolumeManager.retype on the fake driver: alike types need no
driver, the driver's refusal or failure puts everything back, the reservations follow."""

from cinderlike import quota
from cinderlike.db import snapshots as db_snapshots
from cinderlike.db import volume_types as db_types
from cinderlike.db import volumes as db_volumes
from cinderlike.volume import retype
from tests.fixtures import daemons
from tests.unit.volume.conftest import PROJECT, add_volume, ctx, notified, row, usage, workers


def _retyping(manager, db, new_type):
    """A created volume moved to `retyping`, its per-type quota reserved, as the API
    leaves it."""
    volume = add_volume(db, size=2)
    manager.create_volume(ctx(), volume_id=volume.id, request_spec={}, filter_properties={})
    db_volumes.MACHINE.begin(db, row_id=volume.id, action='retype')
    conf = daemons.make_conf()
    reservations = quota.reserve(db, ctx(), conf=conf, project_id=PROJECT, deltas={
        f'volumes_{new_type.name}': 1, f'gigabytes_{new_type.name}': 2})
    reservations += quota.reserve(db, ctx(), conf=conf, project_id=PROJECT, deltas={
        'volumes___DEFAULT__': -1, 'gigabytes___DEFAULT__': -2})
    return volume, reservations


def test_types_diff_names_what_changes(db):
    old = db_types.get_by_name(db, name='__DEFAULT__')
    alike = db_types.create(db, name='alike')
    gold = db_types.create(db, name='gold', extra_specs={'tier': 'gold'})
    assert retype.types_diff(db, old_type_id=old.id, new_type_id=alike.id) == (
        {'extra_specs': {}, 'qos_specs': {}, 'encryption': {}}, True)
    diff, same = retype.types_diff(db, old_type_id=old.id, new_type_id=gold.id)
    assert (diff['extra_specs'], same) == ({'tier': (None, 'gold')}, False)


def test_retype_commits_the_quota_and_types_the_snapshots(manager, db):
    gold = db_types.create(db, name='gold', extra_specs={'tier': 'gold'})
    volume, reservations = _retyping(manager, db, gold)
    snapshot = db_snapshots.create(db, values={
        'volume_id': volume.id, 'project_id': PROJECT, 'status': 'available',
        'volume_size': 2, 'volume_type_id': volume.volume_type_id})
    manager.retype(ctx(), volume_id=volume.id, new_type_id=gold.id, reservations=reservations)
    done = row(db, volume.id)
    assert (done.status, done.volume_type_id) == ('available', gold.id)
    assert db_snapshots.get(db, snapshot_id=snapshot.id).volume_type_id == gold.id
    assert usage(db, 'volumes_gold') == (1, 0) and usage(db, 'gigabytes_gold') == (2, 0)
    assert usage(db, 'volumes___DEFAULT__') == (0, 0) and workers(db) == []
    assert notified()[-1] == 'volume.retype'


def test_a_driver_failure_puts_the_volume_and_quota_back(manager, db, conf):
    gold = db_types.create(db, name='gold', extra_specs={'tier': 'gold'})
    volume, reservations = _retyping(manager, db, gold)
    conf.set_override('fake_fail', ['retype'], group='lvm')
    manager.retype(ctx(), volume_id=volume.id, new_type_id=gold.id, reservations=reservations)
    done = row(db, volume.id)
    assert (done.status, done.volume_type_id) == ('available', volume.volume_type_id)
    assert usage(db, 'volumes_gold') == (0, 0) and usage(db, 'volumes___DEFAULT__') == (1, 0)
    assert workers(db) == []


def test_alike_types_need_no_driver(manager, db, conf):
    alike = db_types.create(db, name='alike')
    volume, reservations = _retyping(manager, db, alike)
    conf.set_override('fake_fail', ['retype'], group='lvm')
    manager.retype(ctx(), volume_id=volume.id, new_type_id=alike.id, reservations=reservations)
    assert row(db, volume.id).volume_type_id == alike.id


def test_a_volume_not_retyping_is_left_alone(manager, db):
    gold = db_types.create(db, name='gold')
    volume = add_volume(db)
    manager.create_volume(ctx(), volume_id=volume.id, request_spec={}, filter_properties={})
    manager.retype(ctx(), volume_id=volume.id, new_type_id=gold.id, reservations=[])
    manager.retype(ctx(), volume_id='no-such-volume', new_type_id=gold.id, reservations=[])
    assert row(db, volume.id).volume_type_id != gold.id and workers(db) == []
