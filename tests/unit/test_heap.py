"""heap.py: a started daemon's objects leave the collector's generations, and its threads
share few malloc arenas (each in a process of its own: a frozen object's cycles are never
collected, and an arena limit stays for the process's life)."""

import json
import os
import subprocess
import sys

PROBE = '''
import gc, json
import cinderlike.api.app  # a daemon's worth of modules, options and mapped classes
from cinderlike import heap
before = len(gc.get_objects())
heap.freeze_startup_objects()
print(json.dumps({'before': before, 'tracked_after': len(gc.get_objects()),
                  'frozen': gc.get_freeze_count()}))
'''


def test_freezing_leaves_the_collector_only_what_is_made_later():
    out = subprocess.run([sys.executable, '-c', PROBE], check=True, capture_output=True,
                         text=True).stdout
    counts = json.loads(out.splitlines()[-1])
    assert counts['frozen'] >= counts['before'] * 0.9
    assert counts['tracked_after'] < counts['before'] / 100


# Eight threads malloc and free at once (ctypes lets go of the GIL around each call), which
# makes glibc hand out arenas; malloc_info() lists one <heap> per arena.
ARENAS = '''
import ctypes, json, sys, tempfile, threading
from cinderlike import heap
limited = heap.limit_malloc_arenas() if sys.argv[1] == 'limit' else None
libc = ctypes.CDLL(None)
libc.malloc.restype = ctypes.c_void_p
libc.free.argtypes = [ctypes.c_void_p]
libc.fopen.restype = ctypes.c_void_p
libc.malloc_info.argtypes = [ctypes.c_int, ctypes.c_void_p]
libc.fclose.argtypes = [ctypes.c_void_p]
start = threading.Barrier(8)
def work():
    start.wait()
    for _ in range(20000):
        libc.free(libc.malloc(256))
threads = [threading.Thread(target=work) for _ in range(8)]
for t in threads: t.start()
for t in threads: t.join()
with tempfile.NamedTemporaryFile(suffix='.xml') as out:
    stream = libc.fopen(out.name.encode(), b'w')
    libc.malloc_info(0, stream)
    libc.fclose(stream)
    heaps = open(out.name).read().count('<heap nr=')
print(json.dumps({'limited': limited, 'arenas': heaps}))
'''


def _arenas(mode, **env):
    out = subprocess.run([sys.executable, '-c', ARENAS, mode], check=True, capture_output=True,
                         text=True, env={**{k: v for k, v in os.environ.items()
                                            if k != 'MALLOC_ARENA_MAX'}, **env}).stdout
    return json.loads(out.splitlines()[-1])


def test_a_daemons_threads_share_at_most_two_malloc_arenas():
    assert _arenas('limit') == {'limited': True, 'arenas': 2}
    assert _arenas('none')['arenas'] > 2  # what glibc does without the limit


def test_an_operators_malloc_arena_max_is_left_alone():
    assert _arenas('limit', MALLOC_ARENA_MAX='3') == {'limited': False, 'arenas': 3}
