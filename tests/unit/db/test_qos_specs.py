"""db/qos_specs: Cinder's adjacency-list rows, the driver's view of a type's QoS specs,
and associations and deletes that change all or nothing.
"""

import pytest
import sqlalchemy as sa

from cinderlike import exception
from cinderlike.db import qos_specs as db_qos
from cinderlike.db import volume_types as db_types
from cinderlike.db.models import QualityOfServiceSpecs as QoS

MISSING = '9b3a0a4c-1111-4e2e-9a5f-000000000000'


@pytest.fixture
def gold(db):
    return db_qos.create(db, name='gold', consumer='front-end',
                         specs={'total_iops_sec': '500', 'read_bytes_sec': None})


@pytest.fixture
def fast(db):
    return db_types.create(db, name='fast')


def _live_rows(db):
    with db.reader() as session:
        return sorted((row.key, row.value, row.specs_id is None) for row in session.scalars(
            sa.select(QoS).where(QoS.deleted.is_(False))))


def test_rows_are_cinders_adjacency_list(db, gold):
    assert _live_rows(db) == [('QoS_Specs_Name', 'gold', True), ('consumer', 'front-end', False),
                              ('read_bytes_sec', None, False), ('total_iops_sec', '500', False)]
    assert (gold.name, gold.consumer, gold.specs, gold.updated_at) == (
        'gold', 'front-end', {'total_iops_sec': '500', 'read_bytes_sec': None}, None)
    assert gold.created_at is not None


def test_get_for_type_is_cinders_get_volume_type_qos_specs(db, gold, fast):
    assert db_qos.get_for_type(db, type_id=fast.id) == {'qos_specs': None}
    db_qos.associate(db, specs_id=gold.id, type_id=fast.id)
    assert db_qos.get_for_type(db, type_id=fast.id) == {'qos_specs': {
        'id': gold.id, 'name': 'gold', 'consumer': 'front-end',
        'specs': {'total_iops_sec': '500', 'read_bytes_sec': None}}}
    with pytest.raises(exception.VolumeTypeNotFound) as err:
        db_qos.get_for_type(db, type_id=MISSING)
    assert err.value.msg == f'Volume type {MISSING} could not be found.'


def test_update_writes_what_changed_and_stamps_updated_at(db, gold):
    record = db_qos.update(db, specs_id=gold.id,
                           specs={'total_iops_sec': '500', 'consumer': 'both', 'new': 'x'})
    assert (record.consumer, record.specs) == (
        'both', {'total_iops_sec': '500', 'read_bytes_sec': None, 'new': 'x'})
    assert record.updated_at is not None
    with db.reader() as session:
        stamp = session.scalar(sa.select(QoS.updated_at).where(QoS.key == 'total_iops_sec'))
    assert stamp is None
    with pytest.raises(exception.QoSSpecsNotFound):
        db_qos.update(db, specs_id=MISSING, specs={'k': 'v'})


def test_delete_keys_up_to_the_first_missing_one(db, gold):
    with pytest.raises(exception.QoSSpecsKeyNotFound) as err:
        db_qos.delete_keys(db, specs_id=gold.id, keys=['read_bytes_sec', 'nope',
                                                       'total_iops_sec'])
    assert err.value.msg == f'QoS spec {gold.id} has no spec with key nope.'
    assert db_qos.get(db, specs_id=gold.id).specs == {'total_iops_sec': '500'}
    assert db_qos.delete_keys(db, specs_id=gold.id, keys=['total_iops_sec']).specs == {}


def test_destroy_in_use_changes_nothing_without_force(db, gold, fast):
    db_qos.associate(db, specs_id=gold.id, type_id=fast.id)
    before = _live_rows(db)
    with pytest.raises(exception.QoSSpecsInUse) as err:
        db_qos.destroy(db, specs_id=gold.id)
    assert err.value.code == 400
    assert (_live_rows(db), db_types.get(db, type_id=fast.id).qos_specs_id) == (before, gold.id)


def test_force_destroy_disassociates_and_deletes_every_row(db, gold, fast):
    db_qos.associate(db, specs_id=gold.id, type_id=fast.id)
    assert db_qos.destroy(db, specs_id=gold.id, force=True) == gold
    assert _live_rows(db) == []
    assert db_types.get(db, type_id=fast.id).qos_specs_id is None
    assert db_qos.get_for_type(db, type_id=fast.id) == {'qos_specs': None}
    with pytest.raises(exception.QoSSpecsNotFound):
        db_qos.destroy(db, specs_id=gold.id, force=True)


def test_a_deleted_name_can_be_taken_again(db, gold):
    db_qos.destroy(db, specs_id=gold.id)
    again = db_qos.create(db, name='gold')
    assert again.id != gold.id
    with pytest.raises(exception.QoSSpecsExists) as err:
        db_qos.create(db, name='gold')
    assert (err.value.code, err.value.msg) == (409, 'QoS Specs gold already exists.')


def test_associate_refusals(db, gold, fast):
    silver = db_qos.create(db, name='silver')
    db_qos.associate(db, specs_id=gold.id, type_id=fast.id)
    with pytest.raises(exception.InvalidVolumeType):
        db_qos.associate(db, specs_id=silver.id, type_id=fast.id)
    with pytest.raises(exception.VolumeTypeNotFound):
        db_qos.associate(db, specs_id=silver.id, type_id=MISSING)
    with pytest.raises(exception.QoSSpecsNotFound):
        db_qos.associate(db, specs_id=MISSING, type_id=fast.id)
    assert db_types.get(db, type_id=fast.id).qos_specs_id == gold.id
