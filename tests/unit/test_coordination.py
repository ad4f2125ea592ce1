"""cinderlike/coordination.py: the tooz coordinator's lifecycle on the file:// backend."""

import pytest

from cinderlike import coordination
from tests.fixtures import daemons


def test_start_lock_and_stop_on_the_file_backend(tmp_path):
    conf = daemons.make_conf(state_path=str(tmp_path))
    first = coordination.Coordinator(conf, member_id='cinder-volume-a@lvm')
    second = coordination.Coordinator(conf, member_id='cinder-volume-b@lvm')
    with pytest.raises(RuntimeError):
        first.get_lock('volume-1')
    first.start()
    second.start()
    try:
        with first.get_lock('volume-1'):
            assert not second.get_lock('volume-1').acquire(blocking=False)
        lock = second.get_lock('volume-1')
        assert lock.acquire(blocking=False)
        lock.release()
    finally:
        first.stop()
        second.stop()
    assert not first.started
    first.stop()  # stopping twice is harmless
