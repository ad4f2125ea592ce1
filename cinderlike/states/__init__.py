"""Pure state tables, one per resource; db/ enforces them with compare-and-swap updates."""
