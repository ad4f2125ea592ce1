"""Helpers of the backup API tests: an app whose RPC records casts and answers calls,
seeded backup rows, their quota, a live backup service."""

import dataclasses
import uuid

import pytest
import sqlalchemy as sa
from falcon import testing

from cinderlike.api.app import create_app
from cinderlike.db import backups as db_backups
from cinderlike.db.models import Backup, BackupMetadata, utcnow
from tests.unit.api.conftest import add_service
from tests.unit.api.type_fixtures import admin
from tests.unit.api.volume_fixtures import Recorder, usages


class BackupRecorder(Recorder):
    """Records casts and answers the backup service's calls as a live one would."""

    def __init__(self):
        super().__init__()
        self.force_delete = True
        self.record = {'backup_service': 'cinderlike.drivers.backup.posix.PosixBackupDriver',
                       'backup_url': 'eyJpZCI6ICJ4In0='}

    def check_support_to_force_delete(self, ctx, **kwargs):
        self.calls.append(('check_support_to_force_delete', kwargs))
        return self.force_delete

    def export_record(self, ctx, **kwargs):
        self.calls.append(('export_record', kwargs))
        return self.record


@dataclasses.dataclass
class BackupRPC:
    scheduler: Recorder = dataclasses.field(default_factory=Recorder)
    volume: Recorder = dataclasses.field(default_factory=Recorder)
    backup: BackupRecorder = dataclasses.field(default_factory=BackupRecorder)


@pytest.fixture
def brpc():
    return BackupRPC()


@pytest.fixture
def bclient(conf, seeded, brpc):
    """noauth client (admin) on an app whose casts land in *brpc*, one backup service up."""
    add_service(seeded, host='bk1', binary='cinder-backup')
    return testing.TestClient(create_app(conf, db=seeded, rpc=brpc))


@pytest.fixture
def bkclient(conf, seeded, brpc):
    """keystone-headers client on the same recording app, for non-admin callers."""
    add_service(seeded, host='bk1', binary='cinder-backup')
    conf.set_override('auth_strategy', 'keystone')
    return testing.TestClient(create_app(conf, db=seeded, rpc=brpc, use_auth_token=False))


def add_backup(db, volume, *, status='available', project=None, metadata=None,
               **values) -> Backup:
    """A backup row of *volume* (its project unless *project*) in *status*."""
    now = utcnow()
    fields = {'id': str(uuid.uuid4()), 'volume_id': volume.id,
              'project_id': project or volume.project_id, 'user_id': 'u1',
              'size': volume.size, 'status': status, 'host': 'bk1',
              'service': 'cinderlike.drivers.backup.posix.PosixBackupDriver',
              'availability_zone': 'nova', 'data_timestamp': now, 'created_at': now, **values}
    row = Backup(**fields)
    with db.writer() as s:
        s.add(row)
        s.flush()
        for key, value in (metadata or {}).items():
            s.add(BackupMetadata(backup_id=row.id, key=key, value=value))
    return db_backups.get(db, backup_id=row.id)


def backup_rows(db) -> list[Backup]:
    with db.reader() as s:
        return list(s.scalars(sa.select(Backup).where(Backup.deleted.is_(False))))


def backup_usage(db, project='admin') -> dict[str, tuple[int, int]]:
    """{resource: (in_use, reserved)} of the backups and backup_gigabytes quotas."""
    return {k: v for k, v in usages(db, project).items() if k.startswith('backup')}


def nothing_held(db, project='admin') -> bool:
    return all(v == (0, 0) for v in backup_usage(db, project).values())


def create(client, body, headers=None, version=None):
    return client.simulate_post('/v3/backups', json=body, headers=headers or admin(version))


def action(client, backup_id, body, headers=None, version=None):
    return client.simulate_post(f'/v3/backups/{backup_id}/action', json=body,
                                headers=headers or admin(version))
