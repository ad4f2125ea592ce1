"""Backup drivers for cinderlike-backup: the interface (base.py), Cinder's chunked format
(chunked.py) and its stores, a directory (posix.py) and OpenStack Swift (swift.py)."""
