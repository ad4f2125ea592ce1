"""Backend drivers: volume/ for cinderlike-volume (backup drivers come with the backup work)."""
