"""Retype and migration transitions racing on real PostgreSQL and MariaDB: retype against
delete, two migrations of one volume, placing a destination against the source's reset,
and the failure that gives a destination's claim back racing its create's finish."""

import pytest
import sqlalchemy as sa

from cinderlike import exception
from cinderlike.db import migrations_status as db_migrations
from cinderlike.db import pools as db_pools
from cinderlike.db import volumes as db_volumes
from cinderlike.db.models import Pool, Volume
from tests.fixtures.race import race, split

SOURCE, DEST = 'n1@a#a', 'n1@b#b'


@pytest.fixture
def db(fresh_db):
    with fresh_db.writer() as s:
        for name in (SOURCE, DEST):
            s.add(Pool(name=name, backend=name.partition('#')[0], allocated_capacity_gb=0,
                       provisioned_capacity_gb=0, capacity_limit_gb=100))
    return fresh_db


def _volume(db, **values):
    """A launched volume on SOURCE holding its claim."""
    values = {'status': 'available', 'size': 10, 'host': SOURCE, 'project_id': 'p1',
              'volume_type_id': 'type-1', 'attach_status': 'detached', **values}
    volume = db_volumes.create(db, values=values)
    with db.writer() as s:
        s.execute(sa.update(Volume).where(Volume.id == volume.id).values(
            launched_at=sa.func.now()))
    db_pools.claim(db, pool=SOURCE, size_gb=values['size'])
    return db_volumes.get(db, volume_id=volume.id)


def _migrate(db, volume_id):
    return lambda: db_migrations.begin(db, volume_id=volume_id, host=DEST, cluster_name=None)


@pytest.mark.parametrize('attempt', range(3))
def test_retype_against_delete_exactly_one_wins(db, attempt):
    volume = _volume(db)
    results = race(
        lambda: db_volumes.MACHINE.begin(db, row_id=volume.id, action='retype',
                                         where=[Volume.volume_type_id != 'type-2']),
        lambda: db_volumes.MACHINE.begin(db, row_id=volume.id, action='delete'))
    winners, losers = split(results)
    assert len(winners) == 1 and len(losers) == 1
    assert isinstance(losers[0], exception.InvalidVolume)
    assert db_volumes.get(db, volume_id=volume.id).status == winners[0].status
    assert winners[0].status in ('retyping', 'deleting')


@pytest.mark.parametrize('attempt', range(3))
def test_two_migrations_of_one_volume_exactly_one_starts(db, attempt):
    volume = _volume(db)
    winners, losers = split(race(_migrate(db, volume.id), _migrate(db, volume.id)))
    assert len(winners) == 1 and winners[0].migration_status == 'starting'
    assert len(losers) == 1 and 'must not be migrating' in losers[0].msg


@pytest.mark.parametrize('attempt', range(3))
def test_migration_against_snapshot_free_delete(db, attempt):
    volume = _volume(db)
    results = race(_migrate(db, volume.id),
                   lambda: db_volumes.MACHINE.begin(db, row_id=volume.id, action='delete'))
    winners, losers = split(results)
    assert len(winners) == 1 and len(losers) == 1
    final = db_volumes.get(db, volume_id=volume.id)
    assert (final.status, final.migration_status) in (('available', 'starting'),
                                                      ('deleting', None))


@pytest.mark.parametrize('attempt', range(3))
def test_placing_the_destination_against_a_reset_claims_nothing_extra(db, attempt):
    volume = _volume(db)
    source = db_migrations.begin(db, volume_id=volume.id, host=DEST, cluster_name=None)

    def place():
        return db_migrations.place_target(db, source=source, pool=DEST, host=DEST,
                                          cluster_name=None, availability_zone='nova',
                                          volume_type_id='type-1')

    def reset():
        db_volumes.MACHINE.reset(db, row_id=volume.id, values={'migration_status': None})

    race(place, reset)
    targets = db_migrations.targets_of(db, source_id=volume.id)
    assert db_pools.claims(db)[DEST][0] == 10 * len(targets) and len(targets) <= 1
    assert db_pools.drift(db) == []


@pytest.mark.parametrize('attempt', range(3))
def test_failure_against_the_destinations_create_finish_releases_once(db, attempt):
    """fail() gives a `creating` destination's claim back; a create finishing at the same
    time (launched) keeps it for its delete to release: never both, never neither."""
    volume = _volume(db)
    source = db_migrations.begin(db, volume_id=volume.id, host=DEST, cluster_name=None)
    target = db_migrations.place_target(db, source=source, pool=DEST, host=DEST,
                                        cluster_name=None, availability_zone='nova',
                                        volume_type_id='type-1')
    db_migrations.begin_run(db, volume_id=volume.id, service_id=None, request={})
    hold, _ = db_migrations.current_hold(db, volume_id=volume.id)

    def finish_create():
        return db_volumes.MACHINE.finish(db, row_id=target.id, action='create',
                                         values={'launched_at': sa.func.now()})

    race(lambda: db_migrations.fail(db, source_id=volume.id, hold=hold), finish_create)
    final = db_volumes.get(db, volume_id=target.id)
    assert final.status == 'deleting'
    assert db_pools.claims(db)[DEST][0] == (10 if final.launched_at is not None else 0)
    assert db_pools.drift(db) == []
