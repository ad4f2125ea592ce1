"""Reference driver with real data (cinderlike-volume process): one raw or qcow2 image file per
volume in `file_volume_directory`, made and changed with qemu-img. Hosts reach a volume through
os-brick's local connector (`target_helper = fake`) or, as Cinder's LVM driver with
`target_helper = tgtadm`, as the LUN of an iSCSI target of tgtd with per-volume CHAP.
The directory may be shared by the members of an Active-Active cluster.
"""

import json
import os
import shutil
import stat
import struct
import time

from oslo_concurrency import processutils
from oslo_config import cfg
from oslo_log import log as logging

from cinderlike import exception
from cinderlike.drivers.volume import base, manageable, targets

LOG = logging.getLogger(__name__)

GiB = 1024 ** 3
QCOW2_MAGIC = b'QFI\xfb'
# qcow2 v3 incompatible feature bit of an external data file.
QCOW2_EXTERNAL_DATA = 1 << 2
# Files of the directory that are never volumes of their own: snapshot copies, and the
# staging file of a revert.
SNAPSHOT_PREFIX = base.SNAPSHOT_NAME_TEMPLATE % ''
STAGING_SUFFIX = '.revert'

DRIVER_OPTS = [
    cfg.StrOpt('file_volume_directory', default='$state_path/volumes',
               help='Directory holding the image file of each volume of this backend.'),
    cfg.StrOpt('file_volume_format', default='raw', choices=['raw', 'qcow2'],
               help='Image format of new volumes. qcow2 is always thin.'),
    cfg.BoolOpt('file_sparse_volumes', default=True,
                help='Create raw volumes as sparse files (thin provisioning); False '
                     'allocates every byte up front (thick).'),
    cfg.DictOpt('file_latency', default={},
                help='Seconds the file driver waits before an operation (latency injection '
                     'for failover tests and benchmarks), e.g. '
                     '"create_volume:2,delete_volume:2". Operations: create_volume, '
                     'create_cloned_volume, delete_volume, extend_volume.'),
] + targets.TARGET_OPTS


class FileDriver(base.VolumeDriver):
    """Volumes are `<file_volume_directory>/volume-<id>` image files."""

    DRIVER_OPTS = DRIVER_OPTS
    # NOTE(cluster): every member sees the same files when the directory is shared, and
    # work on one volume is serialised by the tooz locks.
    SUPPORTS_ACTIVE_ACTIVE = True

    def __init__(self, configuration, *, host):
        super().__init__(configuration, host=host)
        # None: no target, hosts open the file (target_helper = fake).
        self.target = targets.target_for(configuration)

    @property
    def _directory(self) -> str:
        return self.configuration.file_volume_directory

    @property
    def _thin(self) -> bool:
        conf = self.configuration
        return conf.file_volume_format == 'qcow2' or conf.file_sparse_volumes

    def _delay(self, operation: str) -> None:
        latency = float(self.configuration.file_latency.get(operation, 0))
        if latency:
            time.sleep(latency)

    def path(self, volume: base.VolumeRef) -> str:
        return os.path.join(self._directory, volume.name)

    def _qemu_img(self, *args: str) -> str:
        try:
            out, _err = processutils.execute('qemu-img', *args)
        except (processutils.ProcessExecutionError, OSError) as exc:
            raise exception.VolumeBackendAPIException(data=str(exc)) from exc
        return out

    def _preallocation(self) -> list[str]:
        """qemu-img's option for a thick raw file; thin files allocate on write."""
        return [] if self._thin else ['-o', 'preallocation=falloc']

    def _format_of(self, path: str) -> str:
        info = json.loads(self._qemu_img('info', '--output=json', path))
        return info['format']

    def do_setup(self, context):
        os.makedirs(self._directory, exist_ok=True)

    def check_for_setup_error(self):
        if shutil.which('qemu-img') is None:
            raise exception.VolumeDriverException(message='qemu-img is not installed')
        if self.target is not None:
            self._check_target_setup()
        if not os.access(self._directory, os.W_OK | os.X_OK):
            raise exception.VolumeDriverException(
                message=f'{self._directory} is not a writable directory')

    def create_volume(self, volume):
        self._delay('create_volume')
        path = self.path(volume)
        self._qemu_img('create', '-f', self.configuration.file_volume_format,
                       *self._preallocation(), path, f'{volume.size}G')
        LOG.debug('Created %s (%s GiB)', path, volume.size)
        return {'provider_location': path}

    def create_cloned_volume(self, volume, source):
        """`qemu-img convert` copies the source's data as it is now into a new file."""
        self._delay('create_cloned_volume')
        path = self.path(volume)
        self._copy(self.path(source), path)
        if volume.size > source.size:
            self.extend_volume(volume, volume.size)
        return {'provider_location': path}

    def _copy(self, src: str, dst: str) -> None:
        """`qemu-img convert`: *dst* holds *src*'s data now, in the backend's format."""
        self._qemu_img('convert', '-f', self._format_of(src),
                       '-O', self.configuration.file_volume_format,
                       *self._preallocation(), src, dst)

    def snapshot_path(self, snapshot: base.SnapshotRef) -> str:
        return os.path.join(self._directory, snapshot.name)

    def create_snapshot(self, snapshot):
        """A snapshot is a full copy of the volume file as it is now.

        NOTE(copy): a copy, not a qcow2 overlay, so the volume file keeps its format and
        path (hosts and clones open it directly) and each snapshot can go on its own.
        """
        self._delay('create_snapshot')
        path = self.snapshot_path(snapshot)
        self._copy(self.path(snapshot.volume), path)
        return {'provider_location': path}

    def delete_snapshot(self, snapshot):
        self._delay('delete_snapshot')
        try:
            os.remove(self.snapshot_path(snapshot))
        except FileNotFoundError:
            LOG.warning('Snapshot file %s was already gone', self.snapshot_path(snapshot))

    def create_volume_from_snapshot(self, volume, snapshot):
        self._delay('create_volume_from_snapshot')
        path = self.path(volume)
        self._copy(self.snapshot_path(snapshot), path)
        if volume.size > snapshot.volume_size:
            self.extend_volume(volume, volume.size)
        return {'provider_location': path}

    def revert_to_snapshot(self, volume, snapshot):
        """Copy the snapshot to a new file, then rename it over the volume's (atomic)."""
        self._delay('revert_to_snapshot')
        path = self.path(volume)
        staging = f'{path}{STAGING_SUFFIX}'
        self._copy(self.snapshot_path(snapshot), staging)
        os.replace(staging, path)
        if self.target is not None:
            # NOTE(revert): tgtd holds the replaced file open; its LUN must open the new one.
            self.target.refresh_target(volume)

    def delete_volume(self, volume):
        self._delay('delete_volume')
        try:
            os.remove(self.path(volume))
        except FileNotFoundError:
            LOG.warning('Volume file %s was already gone', self.path(volume))

    def retype(self, volume, new_type, diff):
        """NOTE(retype): a volume file's format and place belong to the backend, not to its
        type, so any type this backend passes the filters for is served as it is."""
        return os.path.exists(self.path(volume))

    def extend_volume(self, volume, new_size):
        self._delay('extend_volume')
        path = self.path(volume)
        fmt = self._format_of(path)
        prealloc = [] if self._thin or fmt != 'raw' else ['--preallocation=falloc']
        self._qemu_img('resize', '-f', fmt, *prealloc, path, f'{new_size}G')
        if self.target is not None:
            self.target.refresh_target(volume)

    def _check_target_setup(self):
        conf = self.configuration
        if os.path.realpath(conf.volumes_dir) == os.path.realpath(self._directory):
            # NOTE(volumes_dir): target files are named volume-<id> like the images.
            raise exception.VolumeDriverException(
                message='volumes_dir must differ from file_volume_directory')
        try:
            self.target.show()
        except (processutils.ProcessExecutionError, OSError) as exc:
            raise exception.VolumeDriverException(
                message=f'tgtd does not answer tgt-admin: {exc}') from exc

    def create_export(self, volume, connector):
        """With tgtadm: the file becomes LUN 1 of the volume's target, with new CHAP
        credentials (or the ones it has); returns provider_location and provider_auth.
        Without a target, hosts sharing the directory open the file directly."""
        if self.target is None:
            return None
        return self.target.create_export(volume, self.path(volume))

    def ensure_export(self, volume):
        if self.target is not None:
            self.target.ensure_export(volume, self.path(volume))

    def remove_export(self, volume):
        if self.target is not None:
            self.target.remove_export(volume)

    def initialize_connection(self, volume, connector):
        """Cinder's iSCSI connection info with tgtadm; else os-brick's LocalConnector takes
        the file path as the device."""
        if self.target is not None:
            return self.target.initialize_connection(volume, connector)
        return {'driver_volume_type': 'local', 'data': {'device_path': self.path(volume)}}

    def terminate_connection(self, volume, connector):
        """Nothing to revoke: a target admits whoever has the volume's CHAP credentials (as
        Cinder's tgtadm), a local file whoever the directory's permissions admit."""

    def create_export_snapshot(self, snapshot, connector):
        """With tgtadm: the snapshot file becomes LUN 1 of a target of its own, with CHAP
        credentials (Cinder's LVM exports snapshots alike); without a target, nothing."""
        if self.target is None:
            return None
        return self.target.create_export(snapshot, self._snapshot_file(snapshot))

    def initialize_connection_snapshot(self, snapshot, connector):
        """The snapshot's iSCSI connection info with tgtadm (a backup host reads it over
        the network); without a target, its image file beside the volumes, which a backup
        host sharing the directory opens through os-brick's local connector."""
        if self.target is not None:
            return self.target.initialize_connection(snapshot, connector)
        return {'driver_volume_type': 'local',
                'data': {'device_path': self._snapshot_file(snapshot)}}

    def remove_export_snapshot(self, snapshot):
        if self.target is not None:
            self.target.remove_export(snapshot)

    def _snapshot_file(self, snapshot) -> str:
        """:raises VolumeBackendAPIException: the snapshot has no image file."""
        path = self.snapshot_path(snapshot)
        if not os.path.exists(path):
            raise exception.VolumeBackendAPIException(data=f'no snapshot file {path}')
        return path

    def _virtual_size(self, path: str) -> int:
        """Bytes a volume file offers: a qcow2 header's size field, else the file length."""
        with open(path, 'rb') as image:
            header = image.read(32)
        if header[:4] == QCOW2_MAGIC:
            return struct.unpack('>Q', header[24:32])[0]
        return os.path.getsize(path)

    def _provisioned_gb(self) -> float:
        total = 0
        for entry in os.scandir(self._directory):
            if entry.is_file() and entry.name.startswith('volume-'):
                total += self._virtual_size(entry.path)
        return round(total / GiB, 2)

    def get_volume_stats(self, refresh=False) -> dict:
        conf = self.configuration
        fs = os.statvfs(self._directory)
        provisioned = self._provisioned_gb()
        return {
            'volume_backend_name': self.backend_name,
            'vendor_name': 'cinderlike',
            'driver_version': self.VERSION,
            'storage_protocol': 'local' if self.target is None else 'iSCSI',
            'pools': [{
                'pool_name': self.backend_name,
                'total_capacity_gb': round(fs.f_blocks * fs.f_frsize / GiB, 2),
                'free_capacity_gb': round(fs.f_bavail * fs.f_frsize / GiB, 2),
                'allocated_capacity_gb': provisioned,
                'provisioned_capacity_gb': provisioned,
                'reserved_percentage': conf.reserved_percentage,
                'max_over_subscription_ratio': conf.max_over_subscription_ratio,
                'thin_provisioning_support': self._thin,
                'thick_provisioning_support': not self._thin,
                # NOTE(multiattach): an iSCSI target serves every attached host (as
                # Cinder's LVM driver reports); a local file is opened by one host only.
                'multiattach': self.target is not None,
                'QoS_support': False,
                # NOTE(groups): a group snapshot is taken under every member's lock.
                'consistent_group_snapshot_enabled': True,
            }],
        }

    # --- manage / unmanage: any image file of the directory that no volume owns ---------

    def _named(self, ref) -> str:
        """The path of the file *ref* names: {'source-name': <file name>} or
        {'source-id': <id>} (the file `volume-<id>`).

        :raises ManageExistingInvalidReference: no such regular file in the directory.
        """
        name = None
        if isinstance(ref, dict) and ref.get('source-name'):
            name = ref['source-name']
        elif isinstance(ref, dict) and ref.get('source-id'):
            name = base.VOLUME_NAME_TEMPLATE % ref['source-id']
        if not isinstance(name, str):
            raise exception.ManageExistingInvalidReference(
                existing_ref=ref, reason='Reference must contain source-name or source-id '
                                         'element.')
        path = os.path.join(self._directory, name)
        # NOTE(confinement): a plain name of this directory and a regular file, never a
        # symlink, so a reference cannot adopt a file elsewhere on the host.
        try:
            regular = (os.sep not in name and name not in ('.', '..')
                       and stat.S_ISREG(os.lstat(path).st_mode))
        except (OSError, ValueError):
            regular = False
        if not regular:
            raise exception.ManageExistingInvalidReference(
                existing_ref=name, reason=f'Specified file does not exist in '
                                          f'{self._directory}.')
        return path

    def _unsafe_image(self, path: str) -> str | None:
        """Why the file may not become a volume, by its header: a qcow2 image with a
        backing file or an external data file would let the volume read other files."""
        with open(path, 'rb') as image:
            header = image.read(80)
        if header[:4] != QCOW2_MAGIC:
            return None
        version, backing_offset = struct.unpack('>IQ', header[4:16])
        features = struct.unpack('>Q', header[72:80])[0] if version >= 3 else 0
        if backing_offset or features & QCOW2_EXTERNAL_DATA:
            return 'image refers to other files'
        return None

    def _checked(self, ref) -> str:
        path = self._named(ref)
        reason = self._unsafe_image(path)
        if reason:
            raise exception.ManageExistingInvalidReference(
                existing_ref=os.path.basename(path), reason=reason)
        return path

    def _adopt(self, path: str, dest: str, size: int) -> dict:
        """Rename *path* to *dest* (never over an existing file) and give it *size* GiB."""
        if path != dest:
            try:
                os.link(path, dest)
            except FileExistsError:
                raise exception.VolumeBackendAPIException(
                    data=f'{dest} exists already') from None
            os.unlink(path)
        # NOTE(size): the volume offers the size it reports (rounded up to GiB, Cinder's
        # rule), as every volume file does; growing keeps the data.
        if self._virtual_size(dest) < size * GiB:
            self._qemu_img('resize', '-f', self._format_of(dest), dest, f'{size}G')
        LOG.info('Managed %s as %s (%s GiB)', path, dest, size)
        return {'provider_location': dest}

    def manage_existing_get_size(self, volume, ref):
        return manageable.size_gb(self._virtual_size(self._checked(ref)))

    def manage_existing(self, volume, ref):
        return self._adopt(self._checked(ref), self.path(volume), volume.size)

    def manage_existing_snapshot_get_size(self, snapshot, ref):
        return manageable.size_gb(self._virtual_size(self._checked(ref)))

    def manage_existing_snapshot(self, snapshot, ref):
        return self._adopt(self._checked(ref), self.snapshot_path(snapshot),
                           snapshot.volume_size)

    def _open_files(self) -> set[str]:
        """Files of the directory some process holds open (what lsof would show us)."""
        held = set()
        directory = os.path.realpath(self._directory)
        for pid in os.listdir('/proc'):
            if not pid.isdigit():
                continue
            try:
                fds = os.listdir(f'/proc/{pid}/fd')
            except OSError:
                continue
            for fd in fds:
                try:
                    target = os.readlink(f'/proc/{pid}/fd/{fd}')
                except OSError:
                    continue
                if os.path.dirname(target) == directory:
                    held.add(os.path.basename(target))
        return held

    def _entries(self, managed: dict[str, str], *, snapshots: bool) -> list[dict]:
        kind = 'snapshot' if snapshots else 'volume'
        busy = self._open_files()
        entries = []
        for item in os.scandir(self._directory):
            if (not item.is_file(follow_symlinks=False) or item.name.endswith(STAGING_SUFFIX)
                    or item.name.startswith(SNAPSHOT_PREFIX) != snapshots):
                continue
            exported = (self.target is not None and not snapshots
                        and os.path.exists(os.path.join(self.configuration.volumes_dir,
                                                        item.name)))
            reason = (f'{kind} in use' if item.name in busy or exported
                      else self._unsafe_image(item.path))
            entries.append(manageable.entry(
                item.name, manageable.size_gb(self._virtual_size(item.path)),
                cinder_id=managed.get(item.name), reason_not_safe=reason,
                snapshot=snapshots))
        return entries

    def get_manageable_volumes(self, cinder_volumes, *, marker, limit, offset, sort_keys,
                               sort_dirs):
        """Every image file but snapshots; a volume's own file is `already managed`, an open
        or exported one `volume in use`."""
        entries = self._entries({v.name: v.id for v in cinder_volumes}, snapshots=False)
        return manageable.paginate(entries, marker=marker, limit=limit, offset=offset,
                                   sort_keys=sort_keys, sort_dirs=sort_dirs)

    def get_manageable_snapshots(self, cinder_snapshots, *, marker, limit, offset, sort_keys,
                                 sort_dirs):
        """The `snapshot-*` files; a copy does not record its volume, so source_reference
        is None."""
        entries = self._entries({s.name: s.id for s in cinder_snapshots}, snapshots=True)
        return manageable.paginate(entries, marker=marker, limit=limit, offset=offset,
                                   sort_keys=sort_keys, sort_dirs=sort_dirs)
