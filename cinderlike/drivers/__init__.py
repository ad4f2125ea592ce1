"""Backend drivers: volume/ for cinderlike-volume, backup/ for cinderlike-backup."""
