"""cinderlike/coordination.py on a real Redis: a lock held by a member in another process
blocks this one, and that member's stop releases it (the Active-Active delete lock)."""

import pathlib
import subprocess
import sys
import textwrap
import uuid

import pytest

from cinderlike import coordination, locks
from tests.fixtures import daemons

pytestmark = pytest.mark.redis
ROOT = pathlib.Path(__file__).resolve().parents[2]

# The other member: start, take the lock, say so, stop when told (without releasing first).
HOLDER = textwrap.dedent('''
    import sys
    from cinderlike import coordination
    from tests.fixtures import daemons
    conf = daemons.make_conf()
    conf.set_override('backend_url', sys.argv[1], group='coordination')
    member = coordination.Coordinator(conf, member_id='cinder-volume-holder@lvm')
    member.start()
    lock = member.get_lock(sys.argv[2])
    assert lock.acquire(blocking=True)
    print('held', flush=True)
    sys.stdin.readline()
    member.stop()
    print('stopped', flush=True)
''')


@pytest.fixture
def member(redis_url):
    conf = daemons.make_conf()
    conf.set_override('backend_url', redis_url, group='coordination')
    coordinator = coordination.Coordinator(conf, member_id=f'cinder-volume-{uuid.uuid4()}@lvm')
    coordinator.start()
    yield coordinator
    coordinator.stop()


def test_a_lock_held_in_another_process_blocks_until_its_member_stops(member, redis_url):
    name = locks.delete_volume(str(uuid.uuid4()))
    holder = subprocess.Popen([sys.executable, '-c', HOLDER, redis_url, name],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        assert holder.stdout.readline() == 'held\n'
        lock = member.get_lock(name)
        assert lock.acquire(blocking=False) is False
        holder.stdin.write('stop\n')
        holder.stdin.flush()
        assert holder.stdout.readline() == 'stopped\n'
        assert lock.acquire(blocking=30) is True
        lock.release()
    finally:
        holder.kill()
        holder.wait(30)


def test_two_members_in_one_process_exclude_each_other(member, redis_url):
    conf = daemons.make_conf()
    conf.set_override('backend_url', redis_url, group='coordination')
    other = coordination.Coordinator(conf, member_id=f'cinder-volume-{uuid.uuid4()}@lvm')
    other.start()
    name = locks.delete_volume(str(uuid.uuid4()))
    try:
        with member.get_lock(name):
            assert other.get_lock(name).acquire(blocking=False) is False
        mine = other.get_lock(name)
        assert mine.acquire(blocking=False) is True
        mine.release()
    finally:
        other.stop()
