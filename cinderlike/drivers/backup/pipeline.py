"""A bounded thread pipeline (cinderlike-backup): reading, hashing, compressing and writing
a backup overlap, each in its own thread, with a few pieces in flight between them.

hashlib, zlib, bz2, zstandard and file/socket I/O release the GIL on large buffers, so the
stages run in parallel on several cores while memory stays at `depth` pieces per stage.
"""

import queue
import threading

# Seconds a blocked put/get waits before it looks whether the pipeline was stopped.
_POLL = 0.2
_END = object()


class _Failed:
    """A stage's exception travelling downstream in place of items."""

    def __init__(self, error: BaseException):
        self.error = error


class Stopped(Exception):
    """The consumer left: a stage's emit() gives up."""


class Pipeline:
    """Items of *source* through *stages*, consumed in order by iterating the pipeline.

    Each stage is `stage(item, emit)` and calls `emit(out)` zero or more times; the source
    iterable is read in a thread of its own. Iterate in a `with` block: leaving it early
    (an exception or a break) stops every thread and joins them; then each stage that has
    a `close()` is closed.
    """

    def __init__(self, source, stages, *, depth: int = 2, name: str = 'backup'):
        self._stages = stages
        self._stop = threading.Event()
        self._queues = [queue.Queue(maxsize=depth) for _ in range(len(stages) + 1)]
        self._threads = [threading.Thread(target=self._feed, args=(source,),
                                          name=f'{name}-source', daemon=True)]
        for index, stage in enumerate(stages):
            self._threads.append(threading.Thread(
                target=self._run, args=(stage, self._queues[index], self._queues[index + 1]),
                name=f'{name}-{getattr(stage, "__name__", index)}', daemon=True))

    def __enter__(self):
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *exc_info):
        self._stop.set()
        for thread in self._threads:
            thread.join()
        for stage in self._stages:
            getattr(stage, 'close', lambda: None)()
        return False

    def __iter__(self):
        out = self._queues[-1]
        while True:
            item = self._get(out)
            if item is _END:
                return
            if isinstance(item, _Failed):
                raise item.error
            yield item

    def _put(self, q, item):
        while not self._stop.is_set():
            try:
                q.put(item, timeout=_POLL)
                return
            except queue.Full:
                continue
        raise Stopped()

    def _get(self, q):
        while True:
            try:
                return q.get(timeout=_POLL)
            except queue.Empty:
                if self._stop.is_set():
                    raise Stopped() from None

    def _feed(self, source):
        out = self._queues[0]
        items = iter(source)
        try:
            try:
                for item in items:
                    self._put(out, item)
            except Stopped:
                return
            except BaseException as exc:  # noqa: B036 - handed to the consumer, re-raised there
                self._put(out, _Failed(exc))
                return
            self._put(out, _END)
        except Stopped:
            return
        finally:
            # NOTE(pipeline): a source generator holding an open object closes it here,
            # in its own thread, rather than whenever it is collected.
            getattr(items, 'close', lambda: None)()

    def _run(self, stage, inq, out):
        def emit(item):
            self._put(out, item)
        try:
            while True:
                item = self._get(inq)
                if item is _END or isinstance(item, _Failed):
                    self._put(out, item)
                    return
                try:
                    stage(item, emit)
                except Stopped:
                    return
                except BaseException as exc:  # noqa: B036 - handed to the consumer
                    self._put(out, _Failed(exc))
                    return
        except Stopped:
            return
