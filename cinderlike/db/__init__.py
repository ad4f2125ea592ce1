"""Data layer: the only code that talks SQL. Every status change is a compare-and-swap here."""
