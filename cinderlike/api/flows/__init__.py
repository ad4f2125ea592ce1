"""cinderlike-api: taskflow flows of API requests."""
