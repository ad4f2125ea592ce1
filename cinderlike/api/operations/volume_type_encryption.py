"""cinderlike-api: volume type encryption changes and the notifications Cinder sends.

The rules (type in use, already encrypted) are checked in db/encryption.py, in the
transaction that writes.
"""

from cinderlike import rpc
from cinderlike.db import encryption as db_encryption


def notifier(conf):
    """Cinder's `volumeTypeEncryption.<host>` publisher."""
    return rpc.get_notifier(conf, publisher_id=f'volumeTypeEncryption.{conf.host}')


def _normalized(specs: dict) -> dict:
    """The request's specs with key_size made an integer (Cinder's int())."""
    if specs.get('key_size') is not None:
        specs = dict(specs, key_size=int(specs['key_size']))
    return specs


def create(db, notifier, ctx, *, type_id: str, specs: dict) -> dict:
    """The request's specs with the new row's `volume_type_id` and `encryption_id` (Cinder's
    db call writes them into the request body it then answers with).

    :raises Invalid: type in use; VolumeTypeNotFound, VolumeTypeEncryptionExists:
    """
    specs = _normalized(specs)
    record = db_encryption.create(db, type_id=type_id, specs=specs)
    specs = dict(specs, volume_type_id=record.volume_type_id,
                 encryption_id=record.encryption_id)
    notifier.info(ctx, 'volume_type_encryption.create', {'type_id': type_id, 'specs': specs})
    return specs


def update(db, notifier, ctx, *, type_id: str, encryption_id: str,
           specs: dict) -> dict:
    """:raises VolumeTypeNotFound, Invalid: type in use; VolumeTypeEncryptionNotFound:"""
    specs = _normalized(specs)
    db_encryption.update(db, type_id=type_id, specs=specs)
    notifier.info(ctx, 'volume_type_encryption.update',
                  {'type_id': type_id, 'id': encryption_id})
    return specs


def delete(db, ctx, *, type_id: str) -> None:
    """:raises Invalid: type in use; VolumeTypeEncryptionNotFound: (Cinder notifies nothing)"""
    db_encryption.delete(db, type_id=type_id)
