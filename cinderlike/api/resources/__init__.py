"""cinderlike-api: HTTP resources (parse, authorize, validate, call db/ or RPC, render)."""
