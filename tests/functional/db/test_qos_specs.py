"""QoS specs races on real PostgreSQL and MariaDB: one winner and Cinder's error for the rest,
and never a type left pointing at deleted specs.
"""

import pytest
import sqlalchemy as sa

from cinderlike import exception
from cinderlike.db import qos_specs as db_qos
from cinderlike.db import volume_types as db_types
from cinderlike.db.models import QualityOfServiceSpecs as QoS
from tests.fixtures.race import race, split


def _live_named(db, name) -> int:
    with db.reader() as session:
        return session.scalar(sa.select(sa.func.count()).select_from(QoS).where(
            QoS.key == db_qos.ROOT_KEY, QoS.value == name, QoS.deleted.is_(False)))


def _points_at_live_specs_or_nothing(db, type_id) -> bool:
    qos_id = db_types.get(db, type_id=type_id).qos_specs_id
    if qos_id is None:
        return True
    return db_qos.get_for_type(db, type_id=type_id)['qos_specs'] is not None


@pytest.mark.parametrize('attempt', range(3))
def test_concurrent_creates_of_one_name_one_wins(db, attempt):
    name = f'race-{attempt}'
    results = race(*[lambda: db_qos.create(db, name=name, specs={'k': 'v'})] * 4)
    winners, losers = split(results)
    assert len(winners) == 1 and len(losers) == 3
    assert all(isinstance(e, exception.QoSSpecsExists) and e.code == 409 for e in losers)
    assert _live_named(db, name) == 1
    assert db_qos.get(db, specs_id=winners[0].id).specs == {'k': 'v'}


@pytest.mark.parametrize('attempt', range(3))
def test_concurrent_associations_of_one_type_one_wins(db, attempt):
    vtype = db_types.create(db, name=f'one-qos-{attempt}')
    specs = [db_qos.create(db, name=f'assoc-{attempt}-{n}') for n in range(4)]
    results = race(*[lambda s=s: db_qos.associate(db, specs_id=s.id, type_id=vtype.id)
                     for s in specs])
    winners = [s for s, result in zip(specs, results, strict=True)
               if not isinstance(result, Exception)]
    losers = [result for result in results if isinstance(result, Exception)]
    assert len(winners) == 1
    assert all(isinstance(e, exception.InvalidVolumeType) for e in losers) and len(losers) == 3
    assert db_types.get(db, type_id=vtype.id).qos_specs_id == winners[0].id


@pytest.mark.parametrize('attempt', range(5))
def test_delete_against_associate_never_leaves_a_dangling_type(db, attempt):
    vtype = db_types.create(db, name=f'dangle-{attempt}')
    specs = db_qos.create(db, name=f'dangle-{attempt}')
    associated, deleted = race(
        lambda: db_qos.associate(db, specs_id=specs.id, type_id=vtype.id),
        lambda: db_qos.destroy(db, specs_id=specs.id))
    if isinstance(deleted, Exception):
        # The association came first: the delete saw it and changed nothing.
        assert isinstance(deleted, exception.QoSSpecsInUse) and associated is None
        assert db_qos.get(db, specs_id=specs.id) == specs
        assert db_types.get(db, type_id=vtype.id).qos_specs_id == specs.id
    else:
        assert isinstance(associated, exception.QoSSpecsNotFound)
        assert db_types.get(db, type_id=vtype.id).qos_specs_id is None
    assert _points_at_live_specs_or_nothing(db, vtype.id)


@pytest.mark.parametrize('attempt', range(5))
def test_force_delete_against_associate_never_leaves_a_dangling_type(db, attempt):
    vtype = db_types.create(db, name=f'force-{attempt}')
    specs = db_qos.create(db, name=f'force-{attempt}')
    associated, deleted = race(
        lambda: db_qos.associate(db, specs_id=specs.id, type_id=vtype.id),
        lambda: db_qos.destroy(db, specs_id=specs.id, force=True))
    assert deleted == specs
    assert associated is None or isinstance(associated, exception.QoSSpecsNotFound)
    assert db_types.get(db, type_id=vtype.id).qos_specs_id is None
    assert db_qos.get_all(db, filters={'id': specs.id}) == []


def test_concurrent_key_writes_leave_one_row_per_key(db):
    specs = db_qos.create(db, name='keys')
    race(*[lambda n=n: db_qos.update(db, specs_id=specs.id, specs={'k': str(n)})
           for n in range(4)])
    with db.reader() as session:
        live = session.scalar(sa.select(sa.func.count()).select_from(QoS).where(
            QoS.specs_id == specs.id, QoS.key == 'k', QoS.deleted.is_(False)))
    assert live == 1
    assert db_qos.get(db, specs_id=specs.id).specs['k'] in {'0', '1', '2', '3'}
