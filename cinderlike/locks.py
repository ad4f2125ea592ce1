"""Names of the tooz locks the volume service takes, in one place (Cinder's names).

A lock name is built from ids only, so every member of a cluster computes the same one.
"""

# Cinder's `@coordination.synchronized('{volume.id}-delete_volume')`, with its 'cinder-' prefix.
DELETE_VOLUME = 'cinder-{volume_id}-delete_volume'


def delete_volume(volume_id: str) -> str:
    """Serialises deletes of one volume (a repeated delete waits for the first)."""
    return DELETE_VOLUME.format(volume_id=volume_id)


# Cinder's `{snapshot.id}-delete_snapshot`: also held by a volume created from the snapshot.
DELETE_SNAPSHOT = 'cinder-{snapshot_id}-delete_snapshot'


def delete_snapshot(snapshot_id: str) -> str:
    """Serialises deletes of one snapshot, and keeps it while a volume is made from it."""
    return DELETE_SNAPSHOT.format(snapshot_id=snapshot_id)


# Cinder's `{volume_id}-detach_volume`, taken here around every export change of a volume.
VOLUME_CONNECTIONS = 'cinder-{volume_id}-detach_volume'


def volume_connections(volume_id: str) -> str:
    """Serialises exports and their removal for one volume (connect, disconnect, detach)."""
    return VOLUME_CONNECTIONS.format(volume_id=volume_id)


def of_volume(volume_id: str) -> tuple[str, ...]:
    """Every lock named after a volume, removed once it is deleted (Cinder's
    clean_volume_file_locks)."""
    return delete_volume(volume_id), volume_connections(volume_id)


def of_snapshot(snapshot_id: str) -> tuple[str, ...]:
    """Every lock named after a snapshot, removed once it is deleted (Cinder's
    clean_snapshot_file_locks)."""
    return (delete_snapshot(snapshot_id),)
