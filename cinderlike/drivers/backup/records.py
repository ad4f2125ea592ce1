"""The two JSON objects beside a backup's data (cinderlike-backup): Cinder's `<prefix>_metadata`
(version, objects with offset/length/compression/md5, volume_meta) and `<prefix>_sha256file`
(a sha256 per `chunk_size` block of the whole volume), in Cinder's layout.
"""

import hashlib
import json

VERSION = '1.0.0'
# Versions of the metadata object this driver restores.
SUPPORTED_VERSIONS = ('1.0.0',)
DIGEST_SIZE = hashlib.sha256().digest_size
_SHA_PLACEHOLDER = '"@sha256s@"'


def object_name(prefix: str, number: int) -> str:
    return f'{prefix}-{number:05d}'


def metadata_name(prefix: str) -> str:
    return f'{prefix}_metadata'


def sha256_name(prefix: str) -> str:
    return f'{prefix}_sha256file'


def _common(ref) -> dict:
    return {'version': VERSION, 'backup_id': ref.id, 'volume_id': ref.volume_id,
            'backup_name': ref.name, 'backup_description': ref.description,
            'created_at': str(ref.created_at)}


def metadata_bytes(ref, objects: list, volume_meta) -> bytes:
    """The metadata object: `objects` is Cinder's list of {name: {offset, length, ...}}."""
    doc = _common(ref)
    doc.update(objects=objects, parent_id=ref.parent.id if ref.parent else None,
               volume_meta=volume_meta)
    return json.dumps(doc, sort_keys=True, indent=2).encode('utf-8')


def sha256_pieces(ref, block_size: int, digests: bytes):
    """The sha256file, in pieces: its hex list is ~2 characters per byte of digests."""
    doc = _common(ref)
    doc.update(chunk_size=block_size, sha256s='@sha256s@')
    head, tail = json.dumps(doc, sort_keys=True, indent=2).split(_SHA_PLACEHOLDER)
    yield head.encode('utf-8') + b'['
    count = len(digests) // DIGEST_SIZE
    step = 4096
    for start in range(0, count, step):
        lines = ',\n    '.join(
            f'"{digests[i * DIGEST_SIZE:(i + 1) * DIGEST_SIZE].hex()}"'
            for i in range(start, min(count, start + step)))
        yield (',\n    ' if start else '\n    ').encode() + lines.encode()
    yield (b'\n  ]' if count else b']') + tail.encode('utf-8')


def parse(data: bytes) -> dict:
    """A metadata or sha256file object as a dict.

    :raises ValueError: when it is not such a JSON object.
    """
    doc = json.loads(data.decode('utf-8'))
    if not isinstance(doc, dict):
        raise ValueError('not a JSON object')
    return doc


def digests_of(sha256file: dict) -> tuple[int, bytes]:
    """(block size, the concatenated binary sha256s) of a parsed sha256file.

    :raises ValueError: when the file is malformed.
    """
    block_size = sha256file.get('chunk_size')
    hexes = sha256file.get('sha256s')
    if not isinstance(block_size, int) or block_size <= 0 or not isinstance(hexes, list):
        raise ValueError('no chunk_size or sha256s')
    digests = bytes.fromhex(''.join(hexes))
    if len(digests) != len(hexes) * DIGEST_SIZE:
        raise ValueError('a sha256 is not 64 hex digits')
    return block_size, digests
