"""encryption rows: the encryption specs of volume types (cinderlike-api).

A type's specs change only while no live volume has the type (Cinder's rule). Every writer
locks the type row first and a volume create holds it shared while it inserts, so a change
and a create of that type never both pass their checks.

NOTE(deadlock): on InnoDB a type rename (SERIALIZABLE: it reads the type row shared, then
writes it) and a writer here waiting for that row deadlock; the victim, when it is the
writer here, runs again.
"""

import dataclasses
import datetime
import uuid

import sqlalchemy as sa
from oslo_log import log as logging

from cinderlike import exception
from cinderlike.db import conditional, serializable, volume_types
from cinderlike.db import engine as db_engine
from cinderlike.db.models import Encryption, Volume, utcnow

LOG = logging.getLogger(__name__)

# The spec fields a request may set; Cinder's API shows the row's other columns too.
SPEC_FIELDS = ('cipher', 'key_size', 'provider', 'control_location')
_IN_USE = 'Cannot {} encryption specs. Volume type in use.'


@dataclasses.dataclass(frozen=True)
class EncryptionRecord:
    """One live encryption row, detached from its session (Cinder's columns)."""

    encryption_id: str
    volume_type_id: str
    cipher: str | None
    key_size: int | None
    provider: str | None
    control_location: str | None
    created_at: datetime.datetime | None
    updated_at: datetime.datetime | None
    deleted_at: datetime.datetime | None
    deleted: bool

    def specs(self) -> dict:
        """The four spec fields, as volume encryption metadata carries them."""
        return {field: getattr(self, field) for field in SPEC_FIELDS}


def _record(row) -> EncryptionRecord:
    return EncryptionRecord(**{field.name: getattr(row, field.name)
                               for field in dataclasses.fields(EncryptionRecord)})


def _live(type_id):
    return [Encryption.volume_type_id == type_id, Encryption.deleted == sa.false()]


def _unused(type_id):
    return ~sa.exists().where(Volume.volume_type_id == type_id, Volume.deleted == sa.false())


_TABLE = Encryption.__table__
# NOTE(perf): built once and read as a Core row on the session's connection; a volume create
# reads it (FOR SHARE) in its insert's transaction, before it locks the project's quota rows.
_GET = sa.select(_TABLE).where(_TABLE.c.volume_type_id == sa.bindparam('type_id'),
                               _TABLE.c.deleted == sa.false())
_GET_FOR_SHARE = _GET.with_for_update(read=True)


def get(db, *, type_id: str, session=None, for_share: bool = False) -> EncryptionRecord | None:
    """The type's live encryption, or None for an unencrypted type.

    *for_share* (with the caller's *session*) is a locking read: it sees the latest
    committed row whatever the transaction read before, and holds it until the caller ends.
    """
    with db.reader(session) as s:
        row = db_engine.execute(s, _GET_FOR_SHARE if for_share else _GET,
                                {'type_id': type_id}).first()
        return None if row is None else _record(row)


def _lock_type(db, session, *, type_id: str, verb: str):
    """Lock the type row, then Cinder's in-use check; the row (None: no such type).

    :raises Invalid: a live volume has the type.
    """
    row = volume_types.lock_row(session, type_id=type_id)
    if volume_types.has_volumes(db, type_id=type_id, session=session):
        raise exception.Invalid(_IN_USE.format(verb))
    return row


def create(db, *, type_id: str, specs: dict) -> EncryptionRecord:
    """Give the unused type *type_id* its encryption *specs* (SPEC_FIELDS only).

    :raises Invalid: the type is in use; VolumeTypeNotFound;
        VolumeTypeEncryptionExists: the type already has encryption (a concurrent create
        of the same type included: the type row lock lets one of them through).
    """
    def work(session):
        if _lock_type(db, session, type_id=type_id, verb='create') is None:
            raise exception.VolumeTypeNotFound(volume_type_id=type_id)
        if get(db, type_id=type_id, session=session) is not None:
            raise exception.VolumeTypeEncryptionExists(type_id=type_id)
        row = Encryption(encryption_id=str(uuid.uuid4()), volume_type_id=type_id,
                         **{field: specs.get(field) for field in SPEC_FIELDS})
        session.add(row)
        session.flush()
        return _record(row)

    record = serializable.run(db, work, serializable=False)
    LOG.info('Volume type %s: encryption %s created', type_id, record.encryption_id)
    return record


def update(db, *, type_id: str, specs: dict) -> None:
    """Change the given SPEC_FIELDS of the unused type's encryption.

    :raises VolumeTypeNotFound; Invalid: the type is in use; VolumeTypeEncryptionNotFound:
    """
    values = {field: specs[field] for field in SPEC_FIELDS if field in specs}

    def work(session):
        if _lock_type(db, session, type_id=type_id, verb='update') is None:
            raise exception.VolumeTypeNotFound(volume_type_id=type_id)
        if not conditional.update(session, Encryption, values=dict(values, updated_at=utcnow()),
                                  where=[*_live(type_id), _unused(type_id)]):
            raise exception.VolumeTypeEncryptionNotFound(type_id=type_id)

    serializable.run(db, work, serializable=False)
    LOG.info('Volume type %s: encryption updated (%s)', type_id, ', '.join(sorted(values)))


def delete(db, *, type_id: str) -> None:
    """Soft-delete the type's encryption, unless a live volume has the type.

    The UPDATE itself carries the "no live volume" guard; the type row lock before it makes
    a volume create in flight finish first, so the guard reads its volume.

    :raises Invalid: the type is in use; VolumeTypeEncryptionNotFound:
    """
    def work(session):
        _lock_type(db, session, type_id=type_id, verb='delete')
        count = conditional.update(
            session, Encryption,
            values={'deleted': True, 'deleted_at': utcnow(), 'updated_at': Encryption.updated_at},
            where=[*_live(type_id), _unused(type_id)])
        if not count:
            raise exception.VolumeTypeEncryptionNotFound(type_id=type_id)

    serializable.run(db, work, serializable=False)
    LOG.info('Volume type %s: encryption deleted', type_id)


def hold_for_volume(db, *, type_id: str, expected: EncryptionRecord | None, session) -> None:
    """In a volume insert's transaction: hold the type row shared and check that its
    encryption is still *expected* (what the volume's key was made for).

    :raises InvalidVolumeType: the type's encryption changed since the key was made.
    """
    if volume_types.lock_row(session, type_id=type_id, read=True) is None:
        raise exception.VolumeTypeNotFound(volume_type_id=type_id)
    current = get(db, type_id=type_id, session=session, for_share=True)
    if current != expected:
        raise exception.InvalidVolumeType(
            reason=f'the encryption of volume type {type_id} changed while the volume was '
                   'being created')


def metadata_of(db, *, volume: Volume) -> dict:
    """Cinder's volume_encryption_metadata_get: the key id, and the type's specs if any."""
    values: dict = {'encryption_key_id': volume.encryption_key_id}
    record = get(db, type_id=volume.volume_type_id) if volume.volume_type_id else None
    if record is not None:
        values.update(record.specs())
    return values
