"""cinderlike-scheduler: places volumes on backend pools (filters, weighers, capacity claims)."""
