"""Where an end-to-end stack's backups are stored, as the test looks at them: a posix
directory, or a container of a real Swift (tests/fixtures/swift.py) read with swiftclient.

Both name a backup's objects as Cinder does: `<prefix>-00001`... for data, then
`<prefix>_metadata` and `<prefix>_sha256file`, where the prefix ends `_backup_<id>`.
"""

import os
import pathlib

from swiftclient import client as swiftclient

MiB = 1024 * 1024


def _of_backup(name: str, backup_id: str) -> bool:
    return f'_backup_{backup_id}-' in name or name.endswith(
        (f'_backup_{backup_id}_metadata', f'_backup_{backup_id}_sha256file'))


class Posix:
    """Backups under a directory the stack's backup daemons share."""

    driver = 'posix'
    service = 'cinder.backup.drivers.posix.PosixBackupDriver'

    def __init__(self, root: pathlib.Path):
        self.root = root

    def options(self) -> dict:
        return {'backup_driver': self.driver, 'backup_posix_path': self.root}

    def _paths(self, backup_id: str) -> dict[str, pathlib.Path]:
        if not self.root.exists():
            return {}
        return {p.name: p for p in self.root.rglob(f'*_backup_{backup_id}*')
                if p.is_file() and _of_backup(p.name, backup_id)}

    def objects(self, backup_id: str) -> dict[str, int]:
        """{object name: bytes} of every object of the backup."""
        return {name: path.stat().st_size for name, path in self._paths(backup_id).items()}

    def read(self, backup_id: str, name: str) -> bytes:
        return self._paths(backup_id)[name].read_bytes()

    def write(self, backup_id: str, name: str, data: bytes) -> None:
        self._paths(backup_id)[name].write_bytes(data)


class Swift:
    """Backups in a container of its own on a real Swift, single_user through tempauth."""

    driver = 'swift'
    service = 'cinder.backup.drivers.swift.SwiftBackupDriver'
    USER, KEY = 'test:tester', 'testing'

    def __init__(self, server):
        self.server = server
        self.container = f'e2e-backups-{os.urandom(4).hex()}'

    def options(self) -> dict:
        return {'backup_driver': self.driver, 'backup_swift_auth': 'single_user',
                'backup_swift_auth_url': self.server.auth_url,
                'backup_swift_user': self.USER, 'backup_swift_key': self.KEY,
                'backup_swift_container': self.container,
                # 64 MiB objects, as the posix stack's: a kill -9 finds some written.
                'backup_swift_object_size': 64 * MiB}

    def _conn(self) -> swiftclient.Connection:
        return swiftclient.Connection(authurl=self.server.auth_url, user=self.USER,
                                      key=self.KEY)

    def objects(self, backup_id: str) -> dict[str, int]:
        try:
            _headers, listing = self._conn().get_container(self.container, full_listing=True)
        except swiftclient.ClientException as exc:
            if exc.http_status == 404:
                return {}
            raise
        return {entry['name']: entry['bytes'] for entry in listing
                if _of_backup(entry['name'], backup_id)}

    def read(self, backup_id: str, name: str) -> bytes:
        return self._conn().get_object(self.container, name)[1]

    def write(self, backup_id: str, name: str, data: bytes) -> None:
        self._conn().put_object(self.container, name, data)


def data_objects(repo, backup_id: str) -> dict[str, int]:
    """{name: bytes} of the backup's data objects (not its metadata or sha256file)."""
    return {name: size for name, size in repo.objects(backup_id).items()
            if f'_backup_{backup_id}-' in name}
