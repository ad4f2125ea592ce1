"""drivers/backup/pipeline.py: order, errors at the consumer, threads gone on early exit."""

import threading

import pytest

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
