"""The tgtadm target helper (Cinder's cinder/volume/targets/tgt.py): one tgt target file per
volume under `volumes_dir`, applied to tgtd with `tgt-admin --update`.

NOTE(conf): tgt-admin reads the volume's own target file (`--conf`), so tgtd needs no
`include <volumes_dir>/*` in /etc/tgt/targets.conf for the driver to export; a tgtd that
should bring the targets back by itself when restarted does need it (see README.md).
"""

import os
import textwrap

from oslo_concurrency import lockutils, processutils
from oslo_log import log as logging

from cinderlike import exception
from cinderlike.drivers.volume.targets import iscsi

LOG = logging.getLogger(__name__)

# Cinder's VOLUME_CONF: what `tgt-admin --update` reads for one volume.
VOLUME_CONF = textwrap.dedent("""
    <target %(name)s>
        backing-store %(path)s
        driver %(driver)s
        %(chap_auth)s
        %(target_flags)s
        write-cache %(write_cache)s
        scsi_sn %(scsi_sn)s
        scsi_id %(scsi_id)s
    </target>
    """)

# tgt-admin --delete answers these for a target (or ACL) tgtd no longer has.
GONE_ERRORS = ("can't find the target", 'access control rule does not exist')
# NOTE(lock): tgt-admin picks the next free tid itself, so two updates at once collide
# ("this target already exists"). A file lock in volumes_dir serialises every backend
# process of this host that shares the directory (backends sharing a tgtd share it too).
# Dot files: tgt's `include <volumes_dir>/*` does not read them.
LOCK_PREFIX = '.cinderlike-'
LOCK_NAME = 'tgt-admin'


class TgtAdm(iscsi.ISCSITarget):
    """Targets of a user-space tgtd, configured with tgt-admin."""

    def _execute(self, command: str, *args: str) -> str:
        """Every tgt command goes through here: the control port is added once."""
        port = self.configuration.tgt_control_port
        control = ['-C', str(port)] if port else []
        out, _err = processutils.execute(command, *control, *args)
        return out

    def _serialised(self):
        """The host-wide lock every tgt-admin change runs under."""
        volumes_dir = self.configuration.volumes_dir
        os.makedirs(volumes_dir, exist_ok=True)
        return lockutils.lock(LOCK_NAME, lock_file_prefix=LOCK_PREFIX, external=True,
                              lock_path=volumes_dir)

    def target_file(self, volume) -> str:
        """`<volumes_dir>/volume-<id>`, the persistence file of the volume's target."""
        return os.path.join(self.configuration.volumes_dir, volume.name)

    def target_conf(self, volume, iqn: str, path: str, credentials: tuple[str, str]) -> str:
        """The target file's text: LUN 1 backed by *path*, CHAP `incominguser`."""
        conf = self.configuration
        flags = conf.iscsi_target_flags
        return VOLUME_CONF % {
            'name': iqn, 'path': path, 'driver': self.protocol,
            'chap_auth': 'incominguser {} {}'.format(*credentials),
            'target_flags': f'bsoflags {flags}' if flags else '',
            'write_cache': conf.iscsi_write_cache,
            # Unique per volume, as Cinder derives them from the volume name.
            'scsi_sn': volume.name, 'scsi_id': volume.name}

    def show(self) -> str:
        """`tgt-admin --show`: the targets tgtd has now."""
        return self._execute('tgt-admin', '--show')

    def target_id(self, iqn: str) -> str | None:
        """tid of *iqn* in tgtd ('Target 1: <iqn>'), None when tgtd has no such target."""
        for line in self.show().splitlines():
            parsed = line.split()
            if len(parsed) == 3 and parsed[0] == 'Target' and parsed[2] == iqn:
                return parsed[1].rstrip(':')
        return None

    def has_backing_lun(self, iqn: str) -> bool:
        """Whether tgtd's target *iqn* has LUN 1 (Cinder checks it after each update)."""
        lines, capture = [], False
        for line in self.show().splitlines():
            if line.startswith('Target '):
                capture = line.split()[-1] == iqn
            elif capture:
                lines.append(line.strip())
        return f'LUN: {self.LUN}' in lines

    def _write(self, target_file: str, text: str) -> None:
        """Write through a temporary file and rename, so tgt-admin never reads half a file."""
        directory, name = os.path.split(target_file)
        staging = os.path.join(directory, f'.{name}.tmp')
        with open(staging, 'w') as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(staging, target_file)

    def create_iscsi_target(self, volume, iqn, path, credentials):
        with self._serialised():
            return self._create(volume, iqn, path, credentials)

    def _create(self, volume, iqn, path, credentials):
        target_file = self.target_file(volume)
        self._write(target_file, self.target_conf(volume, iqn, path, credentials))
        try:
            self._execute('tgt-admin', '--conf', target_file, '--update', iqn)
        except (processutils.ProcessExecutionError, OSError) as exc:
            LOG.error('Failed to create iscsi target for volume %(id)s: %(exc)s',
                      {'id': volume.id, 'exc': exc})
            os.unlink(target_file)
            raise exception.ISCSITargetCreateFailed(volume_id=volume.id) from exc
        tid = self.target_id(iqn)
        if tid is None or not self.has_backing_lun(iqn):
            LOG.error('tgtd shows no LUN %(lun)s in target %(iqn)s after the update',
                      {'lun': self.LUN, 'iqn': iqn})
            os.unlink(target_file)
            raise exception.ISCSITargetCreateFailed(volume_id=volume.id)
        LOG.debug('Exported volume %(id)s as %(iqn)s (tid %(tid)s)',
                  {'id': volume.id, 'iqn': iqn, 'tid': tid})
        return tid

    def refresh_target(self, volume) -> None:
        """Rebuild an exported volume's target from its file (--force, as Cinder's
        extend_target), so tgtd opens the file again: grown, or replaced by a revert.
        This interrupts the I/O of connected hosts."""
        target_file = self.target_file(volume)
        if not os.path.exists(target_file):
            return
        try:
            with self._serialised():
                self._execute('tgt-admin', '--conf', target_file, '--update',
                              self.iqn(volume), '--force')
        except (processutils.ProcessExecutionError, OSError) as exc:
            raise exception.ISCSITargetCreateFailed(volume_id=volume.id) from exc

    def remove_iscsi_target(self, volume, iqn):
        """Delete the target from tgtd (--force: with sessions too), then its file.

        NOTE(force): some tgt versions fail silently with --force (Cinder's bug 1304122);
        a target still shown is deleted again without it.
        """
        LOG.info('Removing iscsi_target for volume %s', volume.id)
        try:
            with self._serialised():
                if self.target_id(iqn) is not None:
                    self._delete(iqn, '--force')
                    if self.target_id(iqn) is not None:
                        LOG.warning('Silent failure of target removal detected, retrying '
                                    '%s', iqn)
                        self._delete(iqn)
        except (processutils.ProcessExecutionError, OSError) as exc:
            LOG.error('Failed to remove iscsi target for volume %(id)s: %(exc)s',
                      {'id': volume.id, 'exc': exc})
            raise exception.ISCSITargetRemoveFailed(volume_id=volume.id) from exc
        try:
            os.unlink(self.target_file(volume))
        except FileNotFoundError:
            LOG.debug('Target file of volume %s was already gone', volume.id)

    def _delete(self, iqn: str, *force: str) -> None:
        try:
            self._execute('tgt-admin', '--delete', iqn, *force)
        except processutils.ProcessExecutionError as exc:
            if not any(error in (exc.stderr or '') for error in GONE_ERRORS):
                raise
            LOG.warning('Target %s or its ACLs were already gone', iqn)
