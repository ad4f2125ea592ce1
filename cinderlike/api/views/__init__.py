"""cinderlike-api: rows and values → response documents, one module per resource."""
