"""drivers/backup/pipeline.py: order, errors at the consumer, threads gone on early exit;
the md5 stage's objects hashed side by side (backup_stages.Md5)."""

import hashlib
import os
import threading

import pytest

from cinderlike.drivers.backup import backup_stages
from cinderlike.drivers.backup.pipeline import Pipeline


def _double(item, emit):
    emit(item)
    emit(item)


def _square(item, emit):
    emit(item * item)


def test_items_flow_in_order_through_every_stage():
    with Pipeline(range(200), [_double, _square], depth=1) as flow:
        assert list(flow) == [i * i for i in range(200) for _ in range(2)]


def test_a_stage_error_reaches_the_consumer_after_earlier_items():
    def fail_at_5(item, emit):
        if item == 5:
            raise KeyError('five')
        emit(item)

    seen = []
    with pytest.raises(KeyError, match='five'), Pipeline(range(10), [fail_at_5]) as flow:
        for item in flow:
            seen.append(item)
    assert seen == [0, 1, 2, 3, 4]


def test_a_source_error_reaches_the_consumer():
    def source():
        yield 1
        raise OSError('read failed')

    with pytest.raises(OSError, match='read failed'), Pipeline(source(), [_square]) as flow:
        list(flow)


def test_leaving_early_stops_and_joins_every_thread():
    closed = threading.Event()

    def endless():
        try:
            n = 0
            while True:
                yield n
                n += 1
        finally:
            closed.set()

    before = threading.active_count()
    with Pipeline(endless(), [_double, _square], depth=2) as flow:
        for item in flow:
            if item > 100:
                break
    assert closed.is_set()
    assert threading.active_count() == before


def _objects(count, size=3 * 1024 * 1024):
    """Backup events of *count* objects of random bytes, in 1 MiB data pieces."""
    blobs = [os.urandom(size) for _ in range(count)]
    events = []
    for number, blob in enumerate(blobs, 1):
        events.append(('begin', number, 0))
        events += [('data', blob[i:i + 1024 * 1024]) for i in range(0, size, 1024 * 1024)]
        events.append(('end',))
    return blobs, events


def test_objects_md5s_are_hashed_side_by_side_and_read_after_the_pipeline():
    blobs, events = _objects(5)
    before = threading.active_count()
    stage = backup_stages.Md5(parallel=2, depth=1)
    most = []

    def watch(item, emit):
        most.append(sum(job._thread.is_alive() for job in stage._running))
        emit(item)
    with Pipeline(events, [stage, watch]) as flow:
        ends = [event for event in flow if event[0] == 'end']
    assert max(most) <= 2
    assert [(md5.hexdigest(), length) for _, md5, length in ends] == [
        (hashlib.md5(blob).hexdigest(), len(blob)) for blob in blobs]
    assert threading.active_count() == before


def test_an_object_left_open_by_a_stopped_pipeline_ends_its_md5_thread():
    _blobs, events = _objects(1)
    before = threading.active_count()
    with Pipeline(events, [backup_stages.Md5()]) as flow:
        for event in flow:
            if event[0] == 'data':
                break
    assert threading.active_count() == before
