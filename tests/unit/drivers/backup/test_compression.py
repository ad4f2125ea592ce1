"""drivers/backup/compression.py: Cinder's names, one stream per object, bounded output."""

import bz2
import os
import zlib

import pytest
import zstandard

from cinderlike.drivers.backup import compression

ONE_SHOT = {'zlib': zlib.decompress, 'bz2': bz2.decompress,
            'zstd': lambda data: zstandard.ZstdDecompressor().decompress(
                data, max_output_size=1 << 26)}


@pytest.mark.parametrize('name,recorded', [
    ('none', 'none'), ('OFF', 'none'), ('no', 'none'), (None, 'none'), ('zlib', 'zlib'),
    ('gzip', 'zlib'), ('bz2', 'bz2'), ('BZIP2', 'bz2'), ('zstd', 'zstd')])
def test_cinder_names(name, recorded):
    assert compression.canonical(name) == recorded


def test_unknown_name():
    with pytest.raises(compression.UnknownAlgorithm, match='lzma'):
        compression.canonical('lzma')


def _pack(name, pieces):
    stream = compression.compressor(name)
    return b''.join(stream.compress(p) for p in pieces) + stream.flush()


@pytest.mark.parametrize('name', ['zlib', 'bz2', 'zstd'])
def test_a_streamed_object_is_one_stream_cinder_can_decompress(name):
    pieces = [os.urandom(1000) + b'a' * 300000 for _ in range(5)]
    packed = _pack(name, pieces)
    assert ONE_SHOT[name](packed) == b''.join(pieces)


@pytest.mark.parametrize('name', ['none', 'zlib', 'bz2', 'zstd'])
def test_decompressed_pieces_are_bounded(name):
    data = bytes(32 << 20)
    packed = data if name == 'none' else _pack(name, [data])
    out = []
    stream = compression.Decompressor(name, out.append, out_size=1 << 20)
    for start in range(0, len(packed), 4096):
        stream.feed(packed[start:start + 4096])
    stream.finish()
    assert b''.join(out) == data
    if name != 'none':
        assert max(len(piece) for piece in out) <= 1 << 20


@pytest.mark.parametrize('name', ['zlib', 'bz2'])
def test_damaged_or_cut_streams_are_refused(name):
    packed = bytearray(_pack(name, [os.urandom(50000) * 3]))
    packed[len(packed) // 2] ^= 0xFF
    with pytest.raises(ValueError):
        stream = compression.Decompressor(name, lambda data: None, out_size=1 << 20)
        stream.feed(bytes(packed))
        stream.finish()
    cut = _pack(name, [b'x' * 100000])[:-4]
    stream = compression.Decompressor(name, lambda data: None, out_size=1 << 20)
    with pytest.raises(ValueError, match='ends early'):
        stream.feed(cut)
        stream.finish()


@pytest.mark.parametrize('name', ['zlib', 'bz2'])
def test_bytes_after_the_stream_are_refused(name):
    stream = compression.Decompressor(name, lambda data: None, out_size=1 << 20)
    with pytest.raises(ValueError, match='after the end'):
        stream.feed(_pack(name, [b'abc']) + b'trailing')
