"""Names of the tooz locks the volume service takes, in one place (Cinder's names).

A lock name is built from ids only, so every member of a cluster computes the same one.
"""

# Cinder's `@coordination.synchronized('{volume.id}-delete_volume')`, with its 'cinder-' prefix.
DELETE_VOLUME = 'cinder-{volume_id}-delete_volume'


def delete_volume(volume_id: str) -> str:
    """Serialises deletes of one volume (a repeated delete waits for the first)."""
    return DELETE_VOLUME.format(volume_id=volume_id)
