"""Cinder's chunked backup format on any object store (cinderlike-backup process).

A backup is objects `<prefix>-00001`…, each one stream of the configured compression, plus
`<prefix>_sha256file` and `<prefix>_metadata` (records.py). Incrementals store only the
extents whose block sha256 differs from the parent's; a restore lays the chain down full
first. Subclasses say where objects live (posix.py, swift.py).
"""

import abc
import contextlib
import os

from oslo_log import log as logging
from oslo_utils import units

from cinderlike import exception
from cinderlike.drivers.backup import backup_stages, base, compression, records, restore_stages
from cinderlike.drivers.backup.pipeline import Pipeline

LOG = logging.getLogger(__name__)

# Bytes a pipeline stage handles at once; with two in flight per stage this bounds memory.
PIECE_SIZE = 4 * units.Mi
# Granularity of the zero test when restoring into a new (zeroed) volume, as Cinder.
_ZERO_RUN = units.Mi
_ZEROS = bytes(_ZERO_RUN)


class ChunkedBackupDriver(base.BackupDriver):
    """The chunked format over a subclass's container/object primitives."""

    DRIVER_VERSION = records.VERSION
    SUPPORTS_FORCE_DELETE = True

    # --- what a store provides -------------------------------------------------------

    @property
    @abc.abstractmethod
    def chunk_size(self) -> int:
        """Largest data object, in bytes (a multiple of sha_block_size)."""

    @property
    @abc.abstractmethod
    def sha_block_size(self) -> int:
        """Bytes per sha256 of the sha256file."""

    @abc.abstractmethod
    def default_container(self, backup: base.BackupRef) -> str:
        """Container of a backup created without one."""

    @abc.abstractmethod
    def object_prefix(self, backup: base.BackupRef) -> str:
        """The backup's object name prefix (its service_metadata)."""

    @abc.abstractmethod
    def put_container(self, container: str) -> None:
        """Create *container* if missing (or refuse, per backup_create_containers)."""

    @abc.abstractmethod
    def list_objects(self, container: str, prefix: str) -> list[str]:
        """Names in *container* starting with *prefix*; [] when the container is missing."""

    @abc.abstractmethod
    def open_object(self, container: str, name: str):
        """A writer of a new object: write(bytes), close() to store it, abort() to drop it."""

    @abc.abstractmethod
    def read_object(self, container: str, name: str):
        """The object's bytes, as an iterator of pieces.

        :raises BackupObjectNotFound: when it is not there.
        """

    @abc.abstractmethod
    def delete_object(self, container: str, name: str) -> None:
        """Remove an object; a missing one is fine."""

    def objects_stored(self) -> None:
        """Wait until every object closed so far is stored (a store may upload them in the
        background, in order); raise what a write failed with."""

    def container_emptied(self, backup: base.BackupRef, container: str) -> None:
        """A hook after delete_backup removed the backup's objects from *container*."""

    # --- the format -----------------------------------------------------------------

    @property
    def piece_size(self) -> int:
        block = self.sha_block_size
        return max(block, PIECE_SIZE // block * block)

    def check_for_setup_error(self) -> None:
        if self.chunk_size % self.sha_block_size:
            raise exception.BackupDriverException(
                reason='Chunk size is not multiple of block size for creating hash.')
        compression.canonical(self.conf.backup_compression_algorithm)

    def locate(self, backup: base.BackupRef) -> tuple[str, str]:
        """(container, prefix) of *backup*: its stored ones, else what backup() would use.

        NOTE(prefix): the prefix's timestamp is the row's created_at (Cinder takes the
        clock at backup time), so a backup whose service died before it reported its
        service_metadata can still be found and deleted.
        """
        return (backup.container or self.default_container(backup),
                backup.service_metadata or self.object_prefix(backup))

    def backup(self, backup, volume_file, *, volume_meta=None, progress=None) -> dict:
        if self.chunk_size % self.sha_block_size:
            raise exception.BackupChainInvalid(
                reason='Chunk size is not multiple of block size for creating hash.')
        parent = self._parent_digests(backup) if backup.parent is not None else None
        container, prefix = backup.container or self.default_container(backup), \
            self.object_prefix(backup)
        total = getattr(volume_file, 'size', None) or backup.size * units.Gi
        LOG.debug('Backup %(id)s of volume %(vol)s (%(total)d bytes, %(kind)s) to '
                  '%(container)s/%(prefix)s.', {
                      'id': backup.id, 'vol': backup.volume_id, 'total': total,
                      'kind': 'incremental' if parent else 'full',
                      'container': container, 'prefix': prefix})
        self.put_container(container)
        # A previous attempt of this backup (a service killed mid-way) used the same names.
        self._remove_objects(container, prefix)
        try:
            objects, digests = self._store(container, prefix, volume_file, total=total,
                                           parent=parent, progress=progress)
            self._put_whole(container, records.sha256_name(prefix),
                            records.sha256_pieces(backup, self.sha_block_size, digests))
            self._put_whole(container, records.metadata_name(prefix),
                            [records.metadata_bytes(backup, objects, volume_meta)])
            self.objects_stored()
        except BaseException:
            with contextlib.suppress(Exception):
                self.objects_stored()
            with contextlib.suppress(Exception):
                self._remove_objects(container, prefix)
            raise
        LOG.info('Backup %(id)s stored %(count)d objects in %(container)s.',
                 {'id': backup.id, 'count': len(objects), 'container': container})
        return {'container': container, 'service_metadata': prefix,
                'object_count': len(objects)}

    def _parent_digests(self, backup) -> bytes:
        parent = backup.parent
        container, prefix = self.locate(parent)
        block, digests = self._sha256s(parent, container, prefix)
        if block != self.sha_block_size:
            raise exception.BackupChainInvalid(reason=(
                'Hash block size has changed since the last backup. New hash block size: '
                f'{self.sha_block_size}. Old hash block size: {block}. Do a full backup.'))
        if backup.size > parent.size:
            raise exception.BackupChainInvalid(
                reason='Volume size increased since the last backup. Do a full backup.')
        return digests

    def _store(self, container, prefix, volume_file, *, total, parent, progress):
        splitter = backup_stages.Splitter(block=self.sha_block_size, chunk=self.chunk_size,
                                          parent=parent)
        stages = [splitter, backup_stages.Md5(),
                  backup_stages.Compress(self.conf.backup_compression_algorithm,
                                         probe=self.piece_size)]
        source = backup_stages.read_pieces(volume_file, total=total, piece=self.piece_size)
        objects, writer = [], None
        with Pipeline(source, stages, name='backup') as flow:
            try:
                for event in flow:
                    kind = event[0]
                    if kind == 'begin':
                        name, offset = records.object_name(prefix, event[1]), event[2]
                        writer = self.open_object(container, name)
                    elif kind == 'data':
                        writer.write(event[1])
                    elif kind == 'end':
                        writer.close()
                        writer = None
                        _, md5, length, algorithm = event
                        objects.append({name: {'offset': offset, 'length': length,
                                               'compression': algorithm, 'md5': md5}})
                    elif progress is not None:
                        progress(event[1], total)
            finally:
                if writer is not None:
                    writer.abort()
        for entry in objects:
            for info in entry.values():
                info['md5'] = info['md5'].hexdigest()
        return objects, bytes(splitter.digests)

    def _put_whole(self, container, name, pieces):
        writer = self.open_object(container, name)
        try:
            for piece in pieces:
                writer.write(piece)
        except BaseException:
            writer.abort()
            raise
        writer.close()

    def _read_whole(self, container, name) -> bytes:
        with contextlib.closing(self.read_object(container, name)) as pieces:
            return b''.join(pieces)

    def _doc(self, backup, container, name) -> dict:
        try:
            return records.parse(self._read_whole(container, name))
        except ValueError as exc:
            raise exception.BackupRestoreCorrupt(
                backup_id=backup.id, reason=f'{name} is not valid JSON: {exc}') from None

    def _sha256s(self, backup, container, prefix) -> tuple[int, bytes]:
        doc = self._doc(backup, container, records.sha256_name(prefix))
        try:
            return records.digests_of(doc)
        except ValueError as exc:
            raise exception.BackupRestoreCorrupt(
                backup_id=backup.id, reason=f'{records.sha256_name(prefix)}: {exc}') from None

    def _metadata(self, backup, container, prefix) -> dict:
        """The checked metadata object: a version we restore, every object present."""
        meta = self._doc(backup, container, records.metadata_name(prefix))
        version = meta.get('version')
        if version not in records.SUPPORTED_VERSIONS:
            raise exception.BackupVersionUnsupported(version=version)
        entries = meta.get('objects')
        if not isinstance(entries, list) or not all(
                isinstance(e, dict) and len(e) == 1 for e in entries):
            raise exception.BackupRestoreCorrupt(
                backup_id=backup.id, reason='the metadata object has no object list')
        listed = {records.metadata_name(prefix), records.sha256_name(prefix)}
        present = sorted(n for n in self.list_objects(container, prefix) if n not in listed)
        if present != sorted(name for entry in entries for name in entry):
            raise exception.BackupChainInvalid(
                reason='restore_backup aborted, actual object list does not match object '
                       'list stored in metadata.')
        return meta

    def restore(self, backup, volume_id, volume_file, *, volume_is_new, progress=None):
        chain = backup.chain()
        plans, layers = [], []
        for ref in chain:
            container, prefix = self.locate(ref)
            plans.append((ref, container, self._metadata(ref, container, prefix)))
            layers.append(self._sha256s(ref, container, prefix))
        total = sum(info.get('length', 0) for _, _, meta in plans
                    for entry in meta['objects'] for info in entry.values())
        LOG.debug('Restore of backup %(id)s (%(n)d in its chain) into volume %(vol)s.',
                  {'id': backup.id, 'n': len(chain), 'vol': volume_id})
        stages = [restore_stages.Decompress(out_size=self.piece_size),
                  restore_stages.CheckSha256(layers)]
        layer, done = 0, 0
        try:
            with Pipeline(self._object_source(plans), stages, name='restore') as flow:
                for event in flow:
                    kind = event[0]
                    if kind == 'begin':
                        layer = event[1]
                    elif kind == 'data':
                        _write(volume_file, event[1], event[2],
                               skip_zeros=volume_is_new and layer == 0)
                        done += len(event[2])
                        if progress is not None:
                            progress(done, total)
                    else:
                        _sync(volume_file)
        except restore_stages.Corrupt as exc:
            raise exception.BackupRestoreCorrupt(backup_id=chain[layer].id,
                                                 reason=str(exc)) from None
        metas = [meta.get('volume_meta') for _, _, meta in plans]
        return next((m for m in reversed(metas) if m is not None), None)

    def _object_source(self, plans):
        for layer, (_ref, container, meta) in enumerate(plans):
            for entry in meta['objects']:
                ((name, info),) = entry.items()
                if not (isinstance(info, dict) and isinstance(info.get('offset'), int)
                        and isinstance(info.get('length'), int)):
                    raise restore_stages.Corrupt(f'object {name} has no offset or length')
                yield ('begin', layer, name, info)
                with contextlib.closing(self.read_object(container, name)) as pieces:
                    for piece in pieces:
                        yield ('raw', piece)
                yield ('end',)

    def delete_backup(self, backup) -> None:
        container, prefix = self.locate(backup)
        removed = self._remove_objects(container, prefix)
        self.container_emptied(backup, container)
        LOG.info('Deleted %(n)d objects of backup %(id)s from %(container)s.',
                 {'n': removed, 'id': backup.id, 'container': container})

    def _remove_objects(self, container, prefix) -> int:
        names = self.list_objects(container, prefix)
        for name in names:
            self.delete_object(container, name)
        return len(names)

    def export_record(self, backup) -> dict:
        container, prefix = self.locate(backup)
        meta = self._metadata(backup, container, prefix)
        return {'container': container, 'service_metadata': prefix,
                'version': meta['version'], 'object_count': len(meta['objects'])}

    def import_record(self, backup, driver_info) -> None:
        """The imported record's objects must be here and readable.

        NOTE(import): a record may come back under another id pointing at the same objects
        (Cinder allows it; tempest's export/import test does it), so the id the objects name
        is not checked; deleting either backup then removes the objects, the other finds
        them gone, which delete_backup takes as done.
        """
        container = backup.container or driver_info.get('container') or \
            self.default_container(backup)
        prefix = backup.service_metadata or driver_info.get('service_metadata')
        if not prefix:
            raise exception.BackupChainInvalid(reason='the record has no service_metadata')
        self._metadata(backup, container, prefix)


def _write(volume_file, offset: int, data: bytes, *, skip_zeros: bool) -> None:
    """Write checked bytes; into a new volume (zeros already) only the non-zero MiBs."""
    if not skip_zeros:
        volume_file.seek(offset)
        volume_file.write(data)
        return
    view = memoryview(data)
    for start in range(0, len(data), _ZERO_RUN):
        size = min(_ZERO_RUN, len(data) - start)
        # NOTE(copies): startswith compares in place; slicing would copy every MiB.
        if not data.startswith(_ZEROS if size == _ZERO_RUN else _ZEROS[:size], start):
            volume_file.seek(offset + start)
            volume_file.write(view[start:start + size])


def _sync(volume_file) -> None:
    """Cinder flushes and fsyncs after every object, so a long restore never stalls on close."""
    volume_file.flush()
    try:
        fileno = volume_file.fileno()
    except (OSError, AttributeError, ValueError):
        return
    os.fsync(fileno)
