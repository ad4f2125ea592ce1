"""cinderlike-backup: copies volumes to and from a backup store (drivers come later)."""
