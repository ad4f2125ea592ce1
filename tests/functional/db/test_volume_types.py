"""Volume type races on real PostgreSQL and MariaDB: one winner, Cinder's error for the rest.

Names have no unique constraint in Cinder's schema: creates and renames run SERIALIZABLE and
retry; deletes lock the type row, which a volume create holds `for_share` while it inserts.
"""

import pytest
import sqlalchemy as sa

from cinderlike import exception
from cinderlike.db import default_types as db_default_types
from cinderlike.db import type_access as db_type_access
from cinderlike.db import type_extra_specs as db_type_extra_specs
from cinderlike.db import volume_types as db_types
from cinderlike.db import volumes as db_volumes
from cinderlike.db.models import VolumeType, VolumeTypeExtraSpecs
from tests.fixtures.race import race, split

DEFAULT = '__DEFAULT__'





def _live_named(db, name) -> int:
    with db.reader() as session:
        return session.scalar(sa.select(sa.func.count()).select_from(VolumeType).where(
            VolumeType.name == name, VolumeType.deleted.is_(False)))


@pytest.mark.parametrize('attempt', range(3))
def test_concurrent_creates_of_one_name_one_wins(db, attempt):
    name = f'gold-{attempt}'
    results = race(*[lambda: db_types.create(db, name=name, extra_specs={'k': 'v'})] * 4)
    winners, losers = split(results)
    assert len(winners) == 1
    assert all(isinstance(e, exception.VolumeTypeExists) and e.code == 409 for e in losers)
    assert len(losers) == 3
    assert _live_named(db, name) == 1
    assert db_types.get_by_name(db, name=name).extra_specs == {'k': 'v'}


def test_concurrent_renames_to_one_name_one_wins(db):
    first = db_types.create(db, name='rename-a')
    second = db_types.create(db, name='rename-b')
    results = race(lambda: db_types.update(db, type_id=first.id, name='renamed'),
                    lambda: db_types.update(db, type_id=second.id, name='renamed'))
    winners, losers = split(results)
    assert len(winners) == 1 and len(losers) == 1
    assert isinstance(losers[0], exception.VolumeTypeExists)
    assert _live_named(db, 'renamed') == 1


def _create_volume(db, type_id):
    """What a volume create must do: hold the type `for_share` while inserting the volume."""
    def call():
        with db.writer() as session:
            db_types.get(db, type_id=type_id, session=session, for_share=True)
            return db_volumes.create(db, session=session, values={
                'volume_type_id': type_id, 'size': 1, 'status': 'creating',
                'project_id': 'p1'})
    return call


@pytest.mark.parametrize('attempt', range(5))
def test_delete_against_volume_create_never_orphans_a_volume(db, attempt):
    gold = db_types.create(db, name=f'inuse-{attempt}')
    results = race(_create_volume(db, gold.id),
                    lambda: db_types.destroy(db, type_id=gold.id, conf_default_name=DEFAULT))
    created, deleted = results
    if isinstance(deleted, Exception):
        assert isinstance(deleted, exception.VolumeTypeInUse) and deleted.code == 400
        assert created.volume_type_id == gold.id
        assert db_types.get(db, type_id=gold.id).id == gold.id
    else:
        assert isinstance(created, exception.VolumeTypeNotFound)
        assert deleted.id == gold.id


def test_delete_of_type_in_use_is_refused(db):
    gold = db_types.create(db, name='used')
    _create_volume(db, gold.id)()
    with pytest.raises(exception.VolumeTypeInUse):
        db_types.destroy(db, type_id=gold.id, conf_default_name=DEFAULT)
    assert db_types.get(db, type_id=gold.id).name == 'used'


def test_default_type_cannot_be_deleted(db):
    default = db_types.get_by_name(db, name=DEFAULT)
    with pytest.raises(exception.VolumeTypeDefaultDeletionError):
        db_types.destroy(db, type_id=default.id, conf_default_name=DEFAULT)


@pytest.mark.parametrize('attempt', range(3))
def test_project_default_against_type_delete(db, attempt):
    gold = db_types.create(db, name=f'default-{attempt}')
    project = f'project-{attempt}'
    set_default, deleted = race(
        lambda: db_default_types.set_default(db, project_id=project, type_id=gold.id),
        lambda: db_types.destroy(db, type_id=gold.id, conf_default_name=DEFAULT))
    if isinstance(deleted, Exception):
        assert isinstance(deleted, exception.VolumeTypeDefaultDeletionError)
        assert set_default.volume_type_id == gold.id
    else:
        assert isinstance(set_default, exception.VolumeTypeNotFound)
        assert db_default_types.get(db, project_id=project) is None


def test_concurrent_default_sets_leave_one_row(db):
    gold = db_types.create(db, name='default-many')
    results = race(*[lambda: db_default_types.set_default(
        db, project_id='same-project', type_id=gold.id)] * 4)
    assert not [r for r in results if isinstance(r, Exception)]
    assert [row.project_id for row in db_default_types.get_all(db)].count('same-project') == 1


def test_concurrent_grants_one_wins(db):
    private = db_types.create(db, name='private', is_public=False)
    results = race(*[lambda: db_type_access.add(db, type_id=private.id,
                                                 project_id='p1')] * 3)
    winners, losers = split(results)
    assert len(winners) == 1
    assert all(isinstance(e, exception.VolumeTypeAccessExists) for e in losers)
    assert db_type_access.get_projects(db, type_id=private.id) == ['p1']


def test_concurrent_writes_of_one_spec_key_keep_one_row(db):
    gold = db_types.create(db, name='specs')
    race(*[lambda value=value: db_type_extra_specs.update(db, type_id=gold.id,
                                                            specs={'k': value})
            for value in ('a', 'b', 'c', 'd')])
    with db.reader() as session:
        rows = session.scalars(sa.select(VolumeTypeExtraSpecs.value).where(
            VolumeTypeExtraSpecs.volume_type_id == gold.id,
            VolumeTypeExtraSpecs.deleted.is_(False))).all()
    assert len(rows) == 1 and rows[0] in 'abcd'


def test_a_type_is_read_with_its_live_specs_as_each_caller_may_see_it(db):
    private = db_types.create(db, name='specs-private', is_public=False, projects=['p1'],
                              extra_specs={'a': '1', 'b': '2', 'c': '3'})
    bare = db_types.create(db, name='specs-bare')
    db_type_extra_specs.delete(db, type_id=private.id, key='b')
    for found in (db_types.get(db, type_id=private.id, project_id='p1', is_admin=False),
                  db_types.get_by_name(db, name='specs-private', project_id='p1',
                                       is_admin=False),
                  db_types.get(db, type_id=private.id)):
        assert (found.id, found.extra_specs) == (private.id, {'a': '1', 'c': '3'})
    assert db_types.get_by_name(db, name='specs-bare').extra_specs == {}
    assert db_types.get(db, type_id=bare.id).extra_specs == {}
    with pytest.raises(exception.VolumeTypeNotFound):
        db_types.get(db, type_id=private.id, project_id='p2', is_admin=False)
    with pytest.raises(exception.VolumeTypeNotFoundByName):
        db_types.get_by_name(db, name='specs-private', project_id='p2', is_admin=False)


def test_the_default_type_is_the_projects_else_the_options(db):
    gold = db_types.create(db, name='default-rule-gold', extra_specs={'k': 'v'})
    named = db_types.create(db, name='default-rule-conf')

    def default(project_id, name='default-rule-conf'):
        return db_types.get_default_for_project(db, project_id=project_id,
                                                conf_default_name=name)

    assert default('default-rule-p').id == named.id
    db_default_types.set_default(db, project_id='default-rule-p', type_id=gold.id)
    assert (default('default-rule-p').id, default('default-rule-p').extra_specs) == (
        gold.id, {'k': 'v'})
    assert default('default-rule-p', name='no-such-type').id == gold.id
    assert default('default-rule-other').id == named.id
    with db.writer() as s:  # gone behind the API's back: the option's type then
        s.execute(sa.update(VolumeType).where(VolumeType.id == gold.id).values(deleted=True))
    assert default('default-rule-p').id == named.id
    with pytest.raises(exception.VolumeTypeDefaultMisconfiguredError):
        default('default-rule-p', name='no-such-type')
