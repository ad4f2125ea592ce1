"""The stages of a restore (cinderlike-backup): read objects → decompress → check sha256s;
the driver writes only bytes that passed.

Events between stages are tuples:
- ('begin', layer, name, entry): object `name` of chain `layer` (0: the full backup) starts;
  `entry` is its metadata {offset, length, compression, md5};
- ('raw', bytes): stored bytes of the open object (before decompression);
- ('data', offset, bytes): checked volume bytes to write at `offset`;
- ('end',): the open object is complete and checked.

Every block is compared with the backup's own sha256file before it moves on, so a damaged
object is refused before any of its bad bytes reaches the volume. NOTE(md5): the objects'
md5 (Cinder's, of the same bytes) is not checked as well: the per-block sha256 is the
stronger check, and the md5 would cost a third of a restore's CPU.
"""

import hashlib

from cinderlike.drivers.backup import compression, records


class Corrupt(Exception):
    """A stored object does not hold what the backup's records say (the driver maps it)."""


class Decompress:
    """Decompress each object by the algorithm its metadata entry names."""

    __name__ = 'decompress'

    def __init__(self, *, out_size: int):
        self.out_size = out_size
        self._stream = None
        self._name = None

    def __call__(self, item, emit):
        kind = item[0]
        if kind == 'begin':
            self._name = item[2]
            try:
                self._stream = compression.Decompressor(
                    item[3].get('compression'), lambda data: emit(('data', data)),
                    out_size=self.out_size)
            except compression.UnknownAlgorithm as exc:
                raise Corrupt(f'object {self._name}: {exc}') from None
            emit(item)
        elif kind == 'raw':
            self._guard(self._stream.feed, item[1])
        else:
            self._guard(self._stream.finish)
            emit(item)

    def _guard(self, call, *args):
        try:
            call(*args)
        except ValueError as exc:
            raise Corrupt(f'object {self._name}: {exc}') from None


class CheckSha256:
    """Let through only whole blocks whose sha256 is the one the layer's sha256file holds.

    `layers` is the (block size, digests) of each backup of the chain, full first.
    """

    __name__ = 'sha256'

    def __init__(self, layers: list[tuple[int, bytes]]):
        self.layers = layers
        self._pending = bytearray()

    def __call__(self, item, emit):
        kind = item[0]
        if kind == 'begin':
            _, layer, self._name, entry = item
            self._block, self._digests = self.layers[layer]
            self._offset, self._length = entry['offset'], entry['length']
            self._left = self._length
            if self._offset % self._block:
                raise Corrupt(f'object {self._name} starts at {self._offset}, not on a '
                              f'{self._block}-byte block')
            self._pending = bytearray()
            emit(item)
        elif kind == 'data':
            data = item[1]
            if len(self._pending) + len(data) > self._left:
                raise Corrupt(f'object {self._name} holds more than its {self._length} '
                              'bytes')
            if not self._pending and len(data) % self._block == 0:
                # NOTE(copies): decompressed pieces are whole blocks; check them in place.
                self._check(data, emit)
                return
            self._pending += data
            whole = len(self._pending) - len(self._pending) % self._block
            if whole:
                self._release(whole, emit)
        else:
            if len(self._pending) != self._left:
                raise Corrupt(f'object {self._name} is {self._left - len(self._pending)} '
                              f'bytes short of its {self._length}')
            if self._pending:
                self._release(len(self._pending), emit)
            emit(item)

    def _release(self, size: int, emit):
        data = bytes(self._pending[:size])
        del self._pending[:size]
        self._check(data, emit)

    def _check(self, data: bytes, emit):
        size, view, block = len(data), memoryview(data), self._block
        for start in range(0, size, block):
            index = (self._offset + start) // block
            want = self._digests[index * records.DIGEST_SIZE:(index + 1) * records.DIGEST_SIZE]
            if hashlib.sha256(view[start:start + block]).digest() != want:
                raise Corrupt(f'object {self._name}: sha256 mismatch of the block at volume '
                              f'offset {self._offset + start}')
        emit(('data', self._offset, data))
        self._offset += size
        self._left -= size

