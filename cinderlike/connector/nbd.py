"""A small NBD client (the NetworkBlockDevice protocol, doc/proto.md): fixed newstyle
handshake, NBD_OPT_GO with a block size request, then simple replies to READ, WRITE, FLUSH
and DISC, several requests in flight per call. Enough to stream a volume qemu-nbd serves.

Protocol violations and refusals raise exception.NBDError; an error a command reply
carries raises OSError with that errno (NBD's error values are Linux's).
"""

import dataclasses
import errno
import os
import socket
import struct

from cinderlike import exception

# Handshake.
NBDMAGIC = 0x4E42444D41474943            # 'NBDMAGIC'
IHAVEOPT = 0x49484156454F5054            # 'IHAVEOPT'
OPTION_REPLY_MAGIC = 0x3E889045565A9
FLAG_FIXED_NEWSTYLE = 1 << 0
FLAG_NO_ZEROES = 1 << 1
OPT_GO = 7
REP_ACK = 1
REP_INFO = 3
REP_ERROR_BIT = 1 << 31
REP_ERRORS = {REP_ERROR_BIT + 1: 'unsupported option', REP_ERROR_BIT + 2: 'policy',
              REP_ERROR_BIT + 3: 'invalid', REP_ERROR_BIT + 4: 'platform',
              REP_ERROR_BIT + 5: 'TLS required', REP_ERROR_BIT + 6: 'unknown export',
              REP_ERROR_BIT + 7: 'shutting down', REP_ERROR_BIT + 8: 'block size required',
              REP_ERROR_BIT + 9: 'too big'}
INFO_EXPORT = 0
INFO_BLOCK_SIZE = 3

# Transmission.
REQUEST_MAGIC = 0x25609513
SIMPLE_REPLY_MAGIC = 0x67446698
CMD_READ, CMD_WRITE, CMD_DISC, CMD_FLUSH = 0, 1, 2, 3
FLAG_READ_ONLY = 1 << 1
FLAG_SEND_FLUSH = 1 << 2

REQUEST = struct.Struct('>IHHQQI')
SIMPLE_REPLY = struct.Struct('>IIQ')
OPTION_REPLY = struct.Struct('>QIII')
# NOTE(limits): the spec's defaults when a server advertises no block sizes: clients keep
# requests within 32 MiB and aligned to 512 bytes.
DEFAULT_MAX_BLOCK = 32 * 1024 * 1024
DEFAULT_MIN_BLOCK = 1
MAX_OPTION_REPLY = 64 * 1024
# Requests in flight at once, and their size (within the server's maximum).
QUEUE_DEPTH = 8
REQUEST_SIZE = 512 * 1024


@dataclasses.dataclass(frozen=True)
class Export:
    """What NBD_OPT_GO told about the export."""
    size: int
    flags: int
    min_block: int = DEFAULT_MIN_BLOCK
    preferred_block: int = 4096
    max_block: int = DEFAULT_MAX_BLOCK

    @property
    def read_only(self) -> bool:
        return bool(self.flags & FLAG_READ_ONLY)

    @property
    def can_flush(self) -> bool:
        return bool(self.flags & FLAG_SEND_FLUSH)


class Client:
    """One NBD connection in transmission phase, after `handshake()`."""

    def __init__(self, sock: socket.socket, *, server: str):
        self._sock = sock
        self.server = server
        self.export: Export | None = None
        self._handle = 0

    # --- plumbing ----------------------------------------------------------

    def _fail(self, reason: str) -> exception.NBDError:
        return exception.NBDError(server=self.server, reason=reason)

    def _recv_into(self, view: memoryview) -> None:
        done = 0
        while done < len(view):
            try:
                got = self._sock.recv_into(view[done:])
            except (ConnectionError, TimeoutError) as exc:
                raise self._fail(f'connection lost: {exc}') from exc
            if got == 0:
                raise self._fail('the server closed the connection')
            done += got

    def _recv(self, length: int) -> bytes:
        buffer = bytearray(length)
        self._recv_into(memoryview(buffer))
        return bytes(buffer)

    def _send(self, *chunks) -> None:
        try:
            for chunk in chunks:
                self._sock.sendall(chunk)
        except (ConnectionError, TimeoutError) as exc:
            raise self._fail(f'connection lost: {exc}') from exc

    # --- handshake ---------------------------------------------------------

    def handshake(self, export_name: str = '') -> Export:
        """Fixed newstyle negotiation ending in NBD_OPT_GO for *export_name*."""
        magic, option_magic, flags = struct.unpack('>QQH', self._recv(18))
        if magic != NBDMAGIC or option_magic != IHAVEOPT:
            raise self._fail('not a newstyle NBD server')
        if not flags & FLAG_FIXED_NEWSTYLE:
            raise self._fail('the server does not speak fixed newstyle negotiation')
        self._send(struct.pack('>I', flags & (FLAG_FIXED_NEWSTYLE | FLAG_NO_ZEROES)))
        name = export_name.encode('utf-8')
        # NOTE(block-size): asking for NBD_INFO_BLOCK_SIZE commits us to the server's limits,
        # which is what lets us split requests at its real maximum rather than guess.
        payload = struct.pack(f'>I{len(name)}sHH', len(name), name, 1, INFO_BLOCK_SIZE)
        self._send(struct.pack('>QII', IHAVEOPT, OPT_GO, len(payload)), payload)
        self.export = self._go_replies()
        return self.export

    def _go_replies(self) -> Export:
        found: dict = {}
        while True:
            magic, option, reply, length = OPTION_REPLY.unpack(self._recv(OPTION_REPLY.size))
            if magic != OPTION_REPLY_MAGIC or option != OPT_GO:
                raise self._fail('malformed option reply')
            if length > MAX_OPTION_REPLY:
                raise self._fail(f'option reply of {length} bytes')
            data = self._recv(length)
            if reply & REP_ERROR_BIT:
                why = REP_ERRORS.get(reply, f'error {reply:#x}')
                text = data.decode('utf-8', 'replace')
                raise self._fail(f'export refused ({why}){": " + text if text else ""}')
            if reply == REP_ACK:
                break
            if reply == REP_INFO and len(data) >= 2:
                self._read_info(data, found)
        if 'size' not in found:
            raise self._fail('NBD_OPT_GO succeeded without NBD_INFO_EXPORT')
        return Export(**found)

    def _read_info(self, data: bytes, found: dict) -> None:
        (kind,) = struct.unpack_from('>H', data)
        if kind == INFO_EXPORT and len(data) == 12:
            found['size'], found['flags'] = struct.unpack_from('>QH', data, 2)
        elif kind == INFO_BLOCK_SIZE and len(data) == 14:
            found['min_block'], found['preferred_block'], maximum = struct.unpack_from(
                '>III', data, 2)
            found['max_block'] = min(maximum, DEFAULT_MAX_BLOCK)
        # Other information types are ignored, as the spec asks.

    # --- transmission ------------------------------------------------------

    def _request(self, command: int, offset: int, length: int, data=None) -> int:
        self._handle += 1
        header = REQUEST.pack(REQUEST_MAGIC, 0, command, self._handle, offset, length)
        self._send(header, *(() if data is None else (data,)))
        return self._handle

    def _reply_header(self) -> tuple[int, OSError | None]:
        """(handle, the error it carries) of the next simple reply."""
        magic, error, handle = SIMPLE_REPLY.unpack(self._recv(SIMPLE_REPLY.size))
        if magic != SIMPLE_REPLY_MAGIC:
            raise self._fail(f'reply magic {magic:#x}')
        if error:
            return handle, OSError(error, f'NBD server {self.server}: {os.strerror(error)}')
        return handle, None

    def _chunks(self, offset: int, length: int):
        export = self._require_export()
        if offset % export.min_block or length % export.min_block:
            raise OSError(errno.EINVAL, f'{length} bytes at {offset} are not aligned to the '
                          f"export's {export.min_block}-byte blocks")
        if offset + length > export.size:
            raise OSError(errno.ENOSPC, f'{length} bytes at {offset} pass the end of the '
                          f'export ({export.size} bytes)')
        step = min(export.max_block, max(REQUEST_SIZE, export.preferred_block))
        step -= step % export.min_block
        for start in range(0, length, step):
            yield start, min(step, length - start)

    def _require_export(self) -> Export:
        if self.export is None:
            raise self._fail('no export negotiated')
        return self.export

    def _pipelined(self, command: int, offset: int, view: memoryview) -> None:
        """READ or WRITE *view* at *offset* as requests of at most REQUEST_SIZE bytes, up to
        QUEUE_DEPTH of them in flight (the server answers them in any order).

        NOTE(depth): one request at a time leaves qemu-nbd and an iSCSI target idle between
        requests; a few in flight is what qemu-img convert -m does.
        """
        pieces = list(self._chunks(offset, len(view)))
        pending: dict[int, memoryview] = {}
        failure = None
        sent = 0
        while pending or (sent < len(pieces) and failure is None):
            while sent < len(pieces) and len(pending) < QUEUE_DEPTH and failure is None:
                start, length = pieces[sent]
                part = view[start:start + length]
                handle = self._request(command, offset + start, length,
                                       part if command == CMD_WRITE else None)
                pending[handle] = part
                sent += 1
            handle, error = self._reply_header()
            part = pending.pop(handle, None)
            if part is None:
                raise self._fail(f'reply to request {handle}, which is not in flight')
            if error is not None:
                # The others in flight are still answered: read them, send no more.
                failure = failure or error
            elif command == CMD_READ:
                self._recv_into(part)
        if failure is not None:
            raise failure

    def pread(self, offset: int, view: memoryview) -> None:
        """Read len(*view*) bytes at *offset* into *view*."""
        self._pipelined(CMD_READ, offset, view)

    def pwrite(self, offset: int, view: memoryview) -> None:
        """Write all of *view* at *offset*."""
        if self._require_export().read_only:
            raise OSError(errno.EROFS, f'NBD export of {self.server} is read-only')
        self._pipelined(CMD_WRITE, offset, view)

    def flush(self) -> None:
        """NBD_CMD_FLUSH: every write answered so far is on stable storage."""
        if self._require_export().can_flush:
            sent = self._request(CMD_FLUSH, 0, 0)
            handle, error = self._reply_header()
            if handle != sent:
                raise self._fail(f'reply to request {handle}, expected {sent}')
            if error is not None:
                raise error

    def disconnect(self) -> None:
        """NBD_CMD_DISC (no reply) and close the socket; the server then exits or moves on."""
        try:
            if self.export is not None:
                self._request(CMD_DISC, 0, 0)
        finally:
            self.close()

    def close(self) -> None:
        self._sock.close()
