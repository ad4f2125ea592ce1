"""The stages of a backup (cinderlike-backup): read → sha256 and extents → md5 → compress,
each a thread of the pipeline; the driver writes what comes out.

Events between stages are tuples:
- ('begin', number, offset): object `number` starts at volume byte `offset`;
- ('data', bytes-like): the next bytes of the open object;
- ('end', md5, length, compression): the open object is complete (md5 has hexdigest());
- ('piece', done): the volume up to byte `done` is dealt with (progress).
"""

import hashlib
import queue
import threading

from cinderlike.drivers.backup import compression, records


def read_pieces(volume_file, *, total: int, piece: int):
    """('data', offset, bytes) pieces of the first *total* bytes, then ('eof', length)."""
    volume_file.seek(0)
    offset = 0
    while offset < total:
        want = min(piece, total - offset)
        data = volume_file.read(want)
        # NOTE(short reads): a device or socket may return less than asked for.
        while data and len(data) < want:
            more = volume_file.read(want - len(data))
            if not more:
                break
            data += more
        if not data:
            break
        yield ('read', offset, data)
        offset += len(data)
    yield ('eof', offset)


class Splitter:
    """sha256 of every block; cuts the changed blocks into objects of at most `chunk` bytes.

    A full backup (no parent digests) changes every block. `digests` collects the sha256s.
    """

    __name__ = 'sha256'

    def __init__(self, *, block: int, chunk: int, parent: bytes | None):
        self.block, self.chunk, self.parent = block, chunk, parent
        self.digests = bytearray()
        self._number = 0
        self._open = False

    def _changed(self, index: int, digest: bytes) -> bool:
        if self.parent is None:
            return True
        old = self.parent[index * records.DIGEST_SIZE:(index + 1) * records.DIGEST_SIZE]
        return old != digest

    def __call__(self, item, emit):
        if item[0] == 'eof':
            if self._open:
                emit(('end',))
                self._open = False
            return
        _, offset, data = item
        view, block, run = memoryview(data), self.block, None
        for start in range(0, len(view), block):
            position = offset + start
            digest = hashlib.sha256(view[start:start + block]).digest()
            self.digests += digest
            changed = self._changed(position // block, digest)
            if self._open and (not changed or position % self.chunk == 0):
                if run is not None:
                    emit(('data', view[run:start]))
                    run = None
                emit(('end',))
                self._open = False
            if changed:
                if not self._open:
                    self._number += 1
                    emit(('begin', self._number, position))
                    self._open = True
                if run is None:
                    run = start
        if run is not None:
            emit(('data', view[run:]))
        emit(('piece', offset + len(data)))


class _ObjectMd5:
    """The md5 of one object, computed in a thread of its own from the pieces it is fed.

    NOTE(md5): OpenSSL's md5 runs at about half sha256's speed on these CPUs and one
    object's md5 is one serial stream, so it bounds a backup; objects are hashed side by
    side instead of one after another, and the digest is read once the backup is stored.
    """

    def __init__(self, depth: int):
        self._queue = queue.Queue(maxsize=depth)
        self._md5 = hashlib.md5(usedforsecurity=False)
        self._thread = threading.Thread(target=self._run, name='backup-md5-object',
                                        daemon=True)
        self._thread.start()

    def _run(self):
        while (piece := self._queue.get()) is not None:
            self._md5.update(piece)

    def feed(self, piece) -> None:
        self._queue.put(piece)

    def close(self) -> None:
        """No more pieces (also when the backup stopped half way)."""
        self._queue.put(None)

    def hexdigest(self) -> str:
        """The object's md5, once every piece fed is hashed."""
        self._thread.join()
        return self._md5.hexdigest()


class Md5:
    """Cinder's md5 of each object's uncompressed bytes: its 'end' carries an _ObjectMd5
    whose hexdigest() the driver reads when it writes the metadata. At most `parallel`
    objects are hashed at once, each holding at most `depth` pieces, so memory stays
    bounded when hashing lags."""

    __name__ = 'md5'

    def __init__(self, *, parallel: int = 2, depth: int = 2):
        self.parallel, self.depth = parallel, depth
        self._running, self._current, self._length = [], None, 0

    def __call__(self, item, emit):
        kind = item[0]
        if kind == 'begin':
            while len(self._running) >= self.parallel:
                self._running.pop(0).hexdigest()
            self._current, self._length = _ObjectMd5(self.depth), 0
            self._running.append(self._current)
        elif kind == 'data':
            self._current.feed(item[1])
            self._length += len(item[1])
        elif kind == 'end':
            self._current.close()
            item = ('end', self._current, self._length)
            self._current = None
        emit(item)

    def close(self) -> None:
        """The pipeline ended: an object still open is hashed no further, and every
        object's thread has ended when this returns."""
        if self._current is not None:
            self._current.close()
            self._current = None
        for job in self._running:
            job.hexdigest()
        self._running = []


class Compress:
    """Compress each object as one stream, or store it as is when that does not shrink it.

    Cinder compresses a whole chunk in memory, then keeps the smaller of the two. Here an
    object up to `probe` bytes is decided the same way; a longer one is streamed compressed
    (the algorithms' own stored blocks keep what incompressible data adds to ~0.01%, 0.5%
    for bz2), so memory stays at about two pieces whatever the object size.
    """

    __name__ = 'compress'

    def __init__(self, algorithm: str, *, probe: int):
        self.algorithm = compression.canonical(algorithm)
        self.probe = probe
        self._stream = None
        self._held = None     # the start of the object while it may still fit the probe

    def __call__(self, item, emit):
        kind = item[0]
        if kind == 'begin':
            emit(item)
            self._stream = None
            self._held = None if self.algorithm == compression.NONE else bytearray()
        elif kind == 'data':
            if self._held is None:
                self._pass(item[1], emit)
                return
            self._held += item[1]
            if len(self._held) > self.probe:
                self._stream = compression.compressor(self.algorithm)
                held, self._held = self._held, None
                self._pass(held, emit)
        elif kind == 'end':
            emit(('end', *item[1:], self._finish(emit)))
        else:
            emit(item)

    def _pass(self, data, emit):
        out = self._stream.compress(data) if self._stream is not None else data
        if out:
            emit(('data', out))

    def _finish(self, emit) -> str:
        """Emit what the object still holds; the compression it was stored with."""
        if self._stream is not None:
            tail = self._stream.flush()
            if tail:
                emit(('data', tail))
            return self.algorithm
        if self._held is None:
            return compression.NONE
        raw, self._held = bytes(self._held), None
        stream = compression.compressor(self.algorithm)
        packed = stream.compress(raw) + stream.flush()
        if len(packed) < len(raw):
            emit(('data', packed))
            return self.algorithm
        emit(('data', raw))
        return compression.NONE
