"""cinderlike-scheduler: taskflow flows of scheduler requests."""
