"""Attachments served by qemu-nbd: a local qcow2 image and an iSCSI LUN (with CHAP), each
yielded as an NBDFile and detached (flush, NBD_CMD_DISC, qemu-nbd gone, directory removed)
however the caller's block ends."""

import contextlib
import dataclasses
import struct

from oslo_log import log as logging

from cinderlike import exception
from cinderlike.connector import nbd, qemu_nbd, volume_file

LOG = logging.getLogger(__name__)

# qcow2 header: incompatible_features (v3) at byte 72; bit 2 is "external data file".
QCOW2_INCOMPATIBLE = struct.Struct('>Q')
QCOW2_INCOMPATIBLE_OFFSET = 72
QCOW2_DATA_FILE_BIT = 1 << 2
# What qemu's libiscsi driver says when the target refuses the login.
LOGIN_REFUSED = ('Failed to log in', 'Failed to login')


class NBDFile(volume_file.VolumeFile):
    """The export of an NBD connection; I/O need not be aligned to its block size."""

    def __init__(self, client: nbd.Client, *, writable: bool, name: str):
        super().__init__(client.export.size, writable=writable, name=name)
        self._client = client

    def _aligned(self, offset: int, length: int) -> tuple[int, int]:
        """The export's whole blocks that hold *length* bytes at *offset*."""
        block = self._client.export.min_block
        return offset - offset % block, -(-(offset + length) // block) * block

    def _read_at(self, offset, view):
        start, end = self._aligned(offset, len(view))
        if (start, end) == (offset, offset + len(view)):
            self._client.pread(offset, view)
            return
        bounce = bytearray(end - start)
        self._client.pread(start, memoryview(bounce))
        view[:] = bounce[offset - start:offset - start + len(view)]

    def _write_at(self, offset, view):
        block = self._client.export.min_block
        start, end = self._aligned(offset, len(view))
        if (start, end) == (offset, offset + len(view)):
            self._client.pwrite(offset, view)
            return
        # NOTE(rmw): the partial blocks at either end are read, merged and written whole,
        # as a block device's page cache would; this file is the only writer.
        bounce = bytearray(end - start)
        with memoryview(bounce) as merged:
            self._client.pread(start, merged[:block])
            if end - block > start:
                self._client.pread(end - block, merged[-block:])
            merged[offset - start:offset - start + len(view)] = view
            self._client.pwrite(start, merged)

    def _sync(self):
        self._client.flush()

    def close(self) -> None:
        """Flush (io's close does) and disconnect, even when the flush fails."""
        if self.closed:
            return
        try:
            super().close()
        finally:
            self._client.disconnect()


def _start(server: qemu_nbd.Server, portal: str | None) -> nbd.Client:
    try:
        return server.start()
    except exception.VolumeAttachFailed as exc:
        reason = exc.kwargs['reason']
        if portal is not None and any(words in reason for words in LOGIN_REFUSED):
            raise exception.FailedISCSITargetPortalLogin(portal=portal,
                                                         reason=reason) from exc
        raise


@contextlib.contextmanager
def _serve(server: qemu_nbd.Server, *, portal: str | None = None):
    client = _start(server, portal)
    if server.writable and client.export.read_only:
        client.disconnect()
        server.stop()
        raise exception.BlockDeviceReadOnly(device=server.device)
    volume = NBDFile(client, writable=server.writable, name=server.device)
    try:
        yield volume
    except BaseException:
        # NOTE(cleanup): the caller's error is the one that matters; a flush or disconnect
        # that fails after it is logged, and qemu-nbd is stopped regardless.
        try:
            volume.close()
        except Exception:
            LOG.exception('Detaching %s after an error failed', server.device)
        server.stop()
        raise
    try:
        volume.close()
    finally:
        server.stop()


def _check_qcow2(path: str) -> None:
    with open(path, 'rb') as image:
        header = image.read(QCOW2_INCOMPATIBLE_OFFSET + QCOW2_INCOMPATIBLE.size)
    if len(header) == QCOW2_INCOMPATIBLE_OFFSET + QCOW2_INCOMPATIBLE.size:
        (features,) = QCOW2_INCOMPATIBLE.unpack_from(header, QCOW2_INCOMPATIBLE_OFFSET)
        version = struct.unpack_from('>I', header, 4)[0]
        if version >= 3 and features & QCOW2_DATA_FILE_BIT:
            raise exception.VolumeAttachFailed(
                device=path, reason='qcow2 images with an external data file are refused')


@contextlib.contextmanager
def attach_qcow2(path: str, *, writable: bool):
    """The logical bytes of a qcow2 image file, without its backing file."""
    _check_qcow2(path)
    image = {'driver': 'qcow2', 'backing': None,
             'file': {'driver': 'file', 'filename': path}}
    with _serve(qemu_nbd.Server(image, writable=writable, device=path)) as volume:
        yield volume


@dataclasses.dataclass(frozen=True)
class IscsiTarget:
    """Where a LUN is and how to log in (os-brick's iSCSI connection properties)."""
    portal: str
    iqn: str
    lun: int
    credentials: tuple[str, str] | None = dataclasses.field(default=None, repr=False)

    @property
    def url(self) -> str:
        return f'iscsi://{self.portal}/{self.iqn}/{self.lun}'


@contextlib.contextmanager
def attach_iscsi(target: IscsiTarget, *, writable: bool, initiator: str | None):
    """The LUN through qemu's libiscsi driver; the CHAP password goes to qemu-nbd in a
    0600 secret file, never on its command line."""
    iscsi = {'driver': 'iscsi', 'transport': 'tcp', 'portal': target.portal,
             'target': target.iqn, 'lun': target.lun}
    secret = None
    if target.credentials is not None:
        iscsi.update(user=target.credentials[0], **{'password-secret': qemu_nbd.SECRET_ID})
        secret = target.credentials[1]
    if initiator:
        iscsi['initiator-name'] = initiator
    # The LUN's bytes are the volume's: raw, never probed.
    server = qemu_nbd.Server({'driver': 'raw', 'file': iscsi}, writable=writable,
                             device=target.url, secret=secret)
    with _serve(server, portal=target.portal) as volume:
        yield volume
