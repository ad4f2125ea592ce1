"""What a volume transfer asks of the snapshots that travel with the volume (Cinder's rule)."""

# NOTE(snapshots): Cinder's transfer create refuses, and its accept moves, only snapshots in
# this status; it is the snapshot table's `available` (states/snapshots.py once snapshots
# are served).
SNAPSHOT_MOVABLE = 'available'
