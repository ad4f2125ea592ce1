"""The file-like view of an attached volume that open_volume yields: a fixed-size, seekable
run of bytes; subclasses move the bytes (a local file, or an NBD connection).

Data-path errors are OSError (EIO, ENOSPC past the end, EBADF when closed), as for a block
device; attach and detach errors are exception.BrickException.
"""

import abc
import errno
import io
import os

READ_ALL_CHUNK = 4 * 1024 * 1024


class VolumeFile(io.RawIOBase):
    """`size` bytes, read and written at a position; `flush()` makes writes durable."""

    def __init__(self, size: int, *, writable: bool, name: str):
        super().__init__()
        self.size = size
        self.name = name
        self._writable = writable
        self._position = 0
        self._scratch = bytearray()

    def __repr__(self) -> str:
        return f'<{type(self).__name__} {self.name} size={self.size}>'

    def readable(self) -> bool:
        return True

    def writable(self) -> bool:
        return self._writable

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        self._checkClosed()
        return self._position

    def seek(self, offset: int, whence: int = os.SEEK_SET) -> int:
        self._checkClosed()
        base = {os.SEEK_SET: 0, os.SEEK_CUR: self._position, os.SEEK_END: self.size}.get(whence)
        if base is None:
            raise ValueError(f'invalid whence ({whence})')
        if base + offset < 0:
            raise OSError(errno.EINVAL, 'negative seek position', self.name)
        self._position = base + offset
        return self._position

    def read(self, size: int | None = -1) -> bytes:
        """Up to *size* bytes from the position (all that is left when negative)."""
        self._checkClosed()
        if size is None or size < 0:
            return self.readall()
        length = max(0, min(size, self.size - self._position))
        data = self._read_bytes(self._position, length) if length else b''
        self._position += length
        return data

    def readall(self) -> bytes:
        """The rest of the volume, read in READ_ALL_CHUNK pieces (io's are 8 KiB)."""
        return b''.join(iter(lambda: self.read(READ_ALL_CHUNK), b''))

    def _read_bytes(self, offset: int, length: int) -> bytes:
        """*length* bytes at *offset* as bytes.

        NOTE(scratch): io's read() allocates a zeroed buffer and a copy of it per call,
        and in 4 MiB blocks those fresh allocations cost more than the I/O (a third of
        the throughput); one scratch buffer per file leaves a single copy.
        """
        if len(self._scratch) < length:
            self._scratch = bytearray(length)
        with memoryview(self._scratch) as scratch:
            self._read_at(offset, scratch[:length])
            return bytes(scratch[:length])

    def readinto(self, buffer) -> int:
        """Fill *buffer* from the position; short (or 0) only at the end of the volume."""
        self._checkClosed()
        view = memoryview(buffer).cast('B')
        length = max(0, min(len(view), self.size - self._position))
        if length:
            self._read_at(self._position, view[:length])
            self._position += length
        return length

    def write(self, data) -> int:
        """Write all of *data* at the position; a volume does not grow, so a write past its
        end fails whole with ENOSPC."""
        self._checkClosed()
        if not self._writable:
            raise io.UnsupportedOperation(f'{self.name} is open for reading only')
        view = memoryview(data).cast('B')
        if self._position + len(view) > self.size:
            raise OSError(errno.ENOSPC, f'write of {len(view)} bytes at {self._position} '
                          f'passes the end of the volume ({self.size} bytes)', self.name)
        if len(view):
            self._write_at(self._position, view)
            self._position += len(view)
        return len(view)

    def flush(self) -> None:
        """Make what was written durable on the volume (NBD_CMD_FLUSH, fdatasync)."""
        super().flush()
        if self._writable:
            self._sync()

    @abc.abstractmethod
    def _read_at(self, offset: int, view: memoryview) -> None:
        """Fill all of *view* with the bytes at *offset* (inside the volume)."""

    @abc.abstractmethod
    def _write_at(self, offset: int, view: memoryview) -> None:
        """Write all of *view* at *offset* (inside the volume)."""

    @abc.abstractmethod
    def _sync(self) -> None:
        """Persist completed writes."""


class LocalFile(VolumeFile):
    """A raw image file or block device of this host, read and written with pread/pwrite."""

    def __init__(self, path: str, *, writable: bool):
        flags = (os.O_RDWR if writable else os.O_RDONLY) | os.O_CLOEXEC
        self._fd = os.open(path, flags)
        try:
            # NOTE(size): lseek to the end is the size of a regular file and of a block
            # device alike (st_size is 0 for the latter).
            size = os.lseek(self._fd, 0, os.SEEK_END)
        except OSError:
            os.close(self._fd)
            raise
        super().__init__(size, writable=writable, name=path)

    def fileno(self) -> int:
        return self._fd

    def _read_bytes(self, offset, length):
        data = os.pread(self._fd, length, offset)
        if len(data) < length:
            rest = bytearray(length - len(data))
            self._read_at(offset + len(data), memoryview(rest))
            data += rest
        return data

    def _read_at(self, offset, view):
        done = 0
        while done < len(view):
            got = os.preadv(self._fd, [view[done:]], offset + done)
            if got == 0:
                raise OSError(errno.EIO, f'{self.name} ended at {offset + done} bytes',
                              self.name)
            done += got

    def _write_at(self, offset, view):
        done = 0
        while done < len(view):
            done += os.pwrite(self._fd, view[done:], offset + done)

    def _sync(self):
        os.fdatasync(self._fd)

    def close(self) -> None:
        if self.closed:
            return
        try:
            super().close()
        finally:
            os.close(self._fd)
