"""cinderlike-api: a volume type's encryption row → Cinder's document (every column)."""

from cinderlike.api.views.common import timestamp


def specs(record) -> dict:
    """GET /types/{type_id}/encryption: the row's columns, `{}` for an unencrypted type."""
    if record is None:
        return {}
    return {'volume_type_id': record.volume_type_id, 'encryption_id': record.encryption_id,
            'provider': record.provider, 'cipher': record.cipher, 'key_size': record.key_size,
            'control_location': record.control_location, 'deleted': record.deleted,
            'created_at': timestamp(record.created_at),
            'updated_at': timestamp(record.updated_at),
            'deleted_at': timestamp(record.deleted_at)}
