"""Backup object compression (cinderlike-backup), streamed: Cinder's algorithm names.

Each object is one stream of its algorithm (a zlib stream, a bz2 stream, a zstd frame), so
the module-level decompress Cinder's restore calls on a whole object reads ours too.
Decompression emits at most `out_size` bytes at a time: a few MiB of stored zeros can
expand to GiBs, and memory must stay bounded.
"""

import bz2
import zlib

import zstandard

NONE = 'none'
# Every name `backup_compression_algorithm` (and a stored object's `compression`) may carry,
# to the name we record per object.
CANONICAL = {'none': NONE, 'off': NONE, 'no': NONE, 'zlib': 'zlib', 'gzip': 'zlib',
             'bz2': 'bz2', 'bzip2': 'bz2', 'zstd': 'zstd'}
# Cinder's levels: zlib.compress() and bz2.compress() defaults, python-zstd's 3.
ZLIB_LEVEL = zlib.Z_DEFAULT_COMPRESSION
BZ2_LEVEL = 9
ZSTD_LEVEL = 3


class UnknownAlgorithm(ValueError):
    """Not one of Cinder's compression names."""


def canonical(name: str | None) -> str:
    """The recorded name of *name* (case-insensitive alias).

    :raises UnknownAlgorithm: for a name Cinder does not know.
    """
    try:
        return CANONICAL[(name or NONE).lower()]
    except KeyError:
        raise UnknownAlgorithm(f'unsupported compression algorithm: {name}') from None


def compressor(name: str):
    """A fresh stream compressor (`compress(data)`, `flush()`) of *name*; None for none."""
    algorithm = canonical(name)
    if algorithm == 'zlib':
        return zlib.compressobj(ZLIB_LEVEL)
    if algorithm == 'bz2':
        return bz2.BZ2Compressor(BZ2_LEVEL)
    if algorithm == 'zstd':
        return zstandard.ZstdCompressor(level=ZSTD_LEVEL).compressobj()
    return None


class _Collect:
    """The writer zstandard's stream_writer hands decompressed pieces to."""

    def __init__(self, emit):
        self._emit = emit

    def write(self, data) -> int:
        self._emit(bytes(data))
        return len(data)


class Decompressor:
    """Push compressed bytes with `feed`, close with `finish`; output goes to `emit`.

    Damaged input raises ValueError (the caller turns it into BackupRestoreCorrupt); a
    truncated stream shows as missing length, which the caller checks.
    """

    def __init__(self, name: str, emit, *, out_size: int):
        self._algorithm = canonical(name)
        self._emit = emit
        self._out_size = out_size
        if self._algorithm == 'zlib':
            self._stream = zlib.decompressobj()
        elif self._algorithm == 'bz2':
            self._stream = bz2.BZ2Decompressor()
        elif self._algorithm == 'zstd':
            self._stream = zstandard.ZstdDecompressor().stream_writer(
                _Collect(emit), write_size=out_size, closefd=False)

    def feed(self, data: bytes) -> None:
        try:
            if self._algorithm == NONE:
                self._emit(data)
            elif self._algorithm == 'zlib':
                self._feed_zlib(data)
            elif self._algorithm == 'bz2':
                self._feed_bz2(data)
            else:
                self._stream.write(data)
        except (zlib.error, OSError, EOFError, zstandard.ZstdError) as exc:
            raise ValueError(f'{self._algorithm} stream is damaged: {exc}') from exc

    def _feed_zlib(self, data):
        stream = self._stream
        if stream.eof:
            raise ValueError('data after the end of the zlib stream')
        while data:
            out = stream.decompress(data, self._out_size)
            data = stream.unconsumed_tail
            if out:
                self._emit(out)
        if stream.unused_data:
            raise ValueError('data after the end of the zlib stream')

    def _feed_bz2(self, data):
        stream = self._stream
        out = stream.decompress(data, self._out_size)
        while True:
            if out:
                self._emit(out)
            if stream.eof or stream.needs_input:
                break
            out = stream.decompress(b'', self._out_size)
        if stream.unused_data:
            raise ValueError('data after the end of the bz2 stream')

    def finish(self) -> None:
        """Flush what the stream still holds; an unfinished stream is damaged."""
        if self._algorithm == 'zlib':
            if not self._stream.eof:
                raise ValueError('the zlib stream ends early')
        elif self._algorithm == 'bz2':
            if not self._stream.eof:
                raise ValueError('the bz2 stream ends early')
        elif self._algorithm == 'zstd':
            try:
                self._stream.flush()
            except zstandard.ZstdError as exc:
                raise ValueError(f'zstd stream is damaged: {exc}') from exc
