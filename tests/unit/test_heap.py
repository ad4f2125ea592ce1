"""heap.py: a started daemon's objects leave the collector's generations (in a process of
its own, since a frozen object's cycles are never collected)."""

import json
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
