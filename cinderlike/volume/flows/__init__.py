"""Taskflow flows of the volume service (cinderlike-volume)."""
