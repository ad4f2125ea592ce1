"""cinderlike-volume: one process per backend runs the driver work the scheduler sends."""
