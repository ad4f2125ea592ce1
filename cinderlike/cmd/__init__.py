"""Console entry points: each parses its configuration, sets up logging and starts its service."""
