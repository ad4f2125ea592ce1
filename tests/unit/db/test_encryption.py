"""db/encryption.py on SQLite: the in-use rule, the delete's guard in its UPDATE, the check a
volume insert makes, and Cinder's encryption metadata of a volume."""

import pytest

from cinderlike import exception
from cinderlike.db import encryption as db_encryption
from cinderlike.db import volume_types as db_types
from cinderlike.db import volumes as db_volumes

LUKS = {'provider': 'luks', 'cipher': 'aes-xts-plain64', 'key_size': 256,
        'control_location': 'front-end'}


@pytest.fixture
def gold(db):
    return db_types.create(db, name='gold')


def _volume(db, type_id, key=None):
    return db_volumes.create(db, values={'volume_type_id': type_id, 'size': 1,
                                         'status': 'available', 'encryption_key_id': key})


def test_create_update_delete(db, gold):
    record = db_encryption.create(db, type_id=gold.id, specs=dict(LUKS, other='ignored'))
    assert record.specs() == LUKS and record.volume_type_id == gold.id
    db_encryption.update(db, type_id=gold.id, specs={'key_size': 512, 'unknown': 1})
    assert db_encryption.get(db, type_id=gold.id).key_size == 512
    db_encryption.delete(db, type_id=gold.id)
    assert db_encryption.get(db, type_id=gold.id) is None
    with pytest.raises(exception.VolumeTypeEncryptionNotFound):
        db_encryption.delete(db, type_id=gold.id)


def test_unknown_type(db):
    with pytest.raises(exception.VolumeTypeNotFound):
        db_encryption.create(db, type_id='nope', specs=LUKS)
    with pytest.raises(exception.VolumeTypeNotFound):
        db_encryption.update(db, type_id='nope', specs=LUKS)
    with pytest.raises(exception.VolumeTypeEncryptionNotFound):
        db_encryption.delete(db, type_id='nope')


def test_a_type_in_use_cannot_change(db, gold):
    db_encryption.create(db, type_id=gold.id, specs=LUKS)
    _volume(db, gold.id, key='k')
    for change in (lambda: db_encryption.update(db, type_id=gold.id, specs={'key_size': 1}),
                   lambda: db_encryption.delete(db, type_id=gold.id)):
        with pytest.raises(exception.Invalid, match='Volume type in use.'):
            change()
    assert db_encryption.get(db, type_id=gold.id).key_size == 256


def test_a_volume_insert_refuses_a_changed_encryption(db, gold):
    seen = db_encryption.create(db, type_id=gold.id, specs=LUKS)
    with db.writer() as session:
        db_encryption.hold_for_volume(db, type_id=gold.id, expected=seen, session=session)
    db_encryption.update(db, type_id=gold.id, specs={'key_size': 512})
    for expected in (seen, None):
        with db.writer() as session, pytest.raises(exception.InvalidVolumeType,
                                                   match='changed while the volume'):
            db_encryption.hold_for_volume(db, type_id=gold.id, expected=expected,
                                          session=session)
    with db.writer() as session, pytest.raises(exception.VolumeTypeNotFound):
        db_encryption.hold_for_volume(db, type_id='nope', expected=None, session=session)


def test_metadata_of_a_volume(db, gold):
    plain = _volume(db, gold.id)
    assert db_encryption.metadata_of(db, volume=plain) == {'encryption_key_id': None}
    secret = db_types.create(db, name='secret')
    db_encryption.create(db, type_id=secret.id, specs=LUKS)
    assert db_encryption.metadata_of(db, volume=_volume(db, secret.id, key='k')) == {
        'encryption_key_id': 'k', **LUKS}
