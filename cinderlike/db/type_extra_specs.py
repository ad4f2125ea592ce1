"""volume_type_extra_specs rows: the key/value pairs the scheduler matches (cinderlike-api).

Reads go through `volume_types.get_extra_specs`; writers lock the type row first.
"""

import sqlalchemy as sa

from cinderlike import exception
from cinderlike.db import conditional, volume_types
from cinderlike.db.models import VolumeTypeExtraSpecs, utcnow


def update(db, *, type_id, specs: dict) -> None:
    """Create or overwrite the given keys (Cinder's update_or_create).

    The type row is locked first, so concurrent writers of one type's specs queue up and
    never insert the same key twice.

    :raises VolumeTypeNotFound:
    """
    with db.writer() as session:
        if volume_types.lock_row(session, type_id=type_id) is None:
            raise exception.VolumeTypeNotFound(volume_type_id=type_id)
        now = utcnow()
        for key, value in specs.items():
            if not conditional.update(
                    session, VolumeTypeExtraSpecs, values={'value': value, 'updated_at': now},
                    where=[VolumeTypeExtraSpecs.volume_type_id == type_id,
                           VolumeTypeExtraSpecs.key == key,
                           VolumeTypeExtraSpecs.deleted == sa.false()]):
                session.add(VolumeTypeExtraSpecs(volume_type_id=type_id, key=key, value=value))


def delete(db, *, type_id, key) -> None:
    """:raises VolumeTypeExtraSpecsNotFound:"""
    with db.writer() as session:
        count = conditional.update(
            session, VolumeTypeExtraSpecs, values={'deleted': True, 'deleted_at': utcnow()},
            where=[VolumeTypeExtraSpecs.volume_type_id == type_id,
                   VolumeTypeExtraSpecs.key == key, VolumeTypeExtraSpecs.deleted == sa.false()])
        if not count:
            raise exception.VolumeTypeExtraSpecsNotFound(volume_type_id=type_id,
                                                         extra_specs_key=key)
