"""cinderlike-api: JSON schemas of request bodies, one module per resource."""
