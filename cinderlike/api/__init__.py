"""cinderlike-api: Cinder's v3 REST API as a falcon WSGI application (see app.create_app)."""
