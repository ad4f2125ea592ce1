"""open_volume: attach a volume to this host from the connection info the volume service's
initialize_connection returned, hand out its bytes as a VolumeFile, and detach at the end.

    local + raw file or device  -> plain file I/O
    local + qcow2, iscsi         -> a private qemu-nbd and our NBD client
"""

import contextlib
import os

from oslo_log import log as logging

from cinderlike import exception
from cinderlike.connector import nbd_attach, volume_file

LOG = logging.getLogger(__name__)

QCOW2_MAGIC = b'QFI\xfb'
FORMATS = ('raw', 'qcow2')


def _require(protocol: str, data: dict, key: str):
    value = data.get(key)
    if value in (None, ''):
        raise exception.InvalidConnectionInfo(protocol=protocol, reason=f'no {key}')
    return value


def local_format(data: dict) -> str:
    """The image format of a local connection: its `format` field when the driver sends
    one (as Cinder's file-based drivers do), else what the file's header says.

    NOTE(probe): a probed qcow2 is opened without its backing file and an image with an
    external data file is refused (nbd_attach), so a guest that wrote a qcow2 header into
    a raw volume cannot make this host open other files.
    """
    given = data.get('format')
    if given is not None:
        if given not in FORMATS:
            raise exception.InvalidConnectionInfo(
                protocol='local', reason=f'format {given!r} is not one of {", ".join(FORMATS)}')
        return given
    with open(data['device_path'], 'rb') as image:
        return 'qcow2' if image.read(len(QCOW2_MAGIC)) == QCOW2_MAGIC else 'raw'


@contextlib.contextmanager
def _open_local(data: dict, *, writable: bool, initiator: str | None):
    path = _require('local', data, 'device_path')
    if not os.path.exists(path):
        raise exception.VolumeDeviceNotFound(device=path)
    if local_format(data) == 'qcow2':
        with nbd_attach.attach_qcow2(path, writable=writable) as volume:
            yield volume
        return
    try:
        volume = volume_file.LocalFile(path, writable=writable)
    except PermissionError as exc:
        if writable and os.access(path, os.R_OK):
            raise exception.BlockDeviceReadOnly(device=path) from exc
        raise
    with contextlib.closing(volume):
        yield volume


@contextlib.contextmanager
def _open_iscsi(data: dict, *, writable: bool, initiator: str | None):
    target = nbd_attach.IscsiTarget(
        portal=_require('iscsi', data, 'target_portal'),
        iqn=_require('iscsi', data, 'target_iqn'),
        lun=int(data.get('target_lun', 0)),
        credentials=_chap(data))
    with nbd_attach.attach_iscsi(target, writable=writable, initiator=initiator) as volume:
        yield volume


def _chap(data: dict) -> tuple[str, str] | None:
    method = data.get('auth_method')
    if not method:
        return None
    if method.upper() != 'CHAP':
        raise exception.InvalidConnectionInfo(
            protocol='iscsi', reason=f'auth_method {method} is not supported (CHAP only)')
    return _require('iscsi', data, 'auth_username'), _require('iscsi', data, 'auth_password')


OPENERS = {'local': _open_local, 'iscsi': _open_iscsi}


@contextlib.contextmanager
def open_volume(connection_info: dict, *, writable: bool, initiator: str | None = None):
    """Yield a VolumeFile of the volume behind *connection_info*; detach when the block ends,
    whether it returned or raised.

    :param initiator: the IQN to log in to iSCSI targets with (`properties()['initiator']`,
        the one the connection was made for); qemu's default name when None.
    :raises ProtocolNotSupported: no connector for the connection's driver_volume_type.
    :raises InvalidConnectionInfo: a field the protocol needs is missing or wrong.
    :raises BlockDeviceReadOnly: *writable* asked of a read-only attachment or export.
    :raises VolumeDeviceNotFound, VolumeAttachFailed, FailedISCSITargetPortalLogin:
    """
    protocol = connection_info.get('driver_volume_type')
    opener = OPENERS.get(str(protocol).lower())
    if opener is None:
        raise exception.ProtocolNotSupported(protocol=protocol)
    data = connection_info.get('data') or {}
    if writable and data.get('access_mode') == 'ro':
        raise exception.BlockDeviceReadOnly(device=data.get('volume_id') or protocol)
    LOG.debug('Attaching a %(protocol)s volume for %(mode)s',
              {'protocol': protocol, 'mode': 'writing' if writable else 'reading'})
    with opener(data, writable=writable, initiator=initiator) as volume:
        yield volume
