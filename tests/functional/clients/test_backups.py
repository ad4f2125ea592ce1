"""Backups through the real clients against the four daemons, with a `file` backend and the
posix backup driver: the python-cinderclient library, the `cinder` CLI (backup-create
--incremental, backup-restore, backup-export/backup-import, backup-delete) and openstacksdk.

NOTE(noauth): the `openstack volume backup` commands go through openstacksdk, whose version
discovery asks /v3/ without a token (answered 204 under noauth, as Cinder's); they are not
run here.
"""

import pathlib
import shutil
import subprocess
import sys

import pytest
import sqlalchemy as sa
from cinderclient import client as cinder_client
from cinderclient import exceptions
from cinderclient.contrib import noauth
from keystoneauth1 import session
from openstack import exceptions as sdk_exceptions

from tests.functional.clients.helpers import settle
from tests.functional.clients.test_openstacksdk import _connect
from tests.functional.e2e.stack import PROJECT, deployed

pytestmark = [pytest.mark.rabbit, pytest.mark.postgresql, pytest.mark.qemu_img]

BIN = pathlib.Path(sys.executable).parent
CINDER = shutil.which('cinder', path=str(BIN))
STARTUP = 90


@pytest.fixture(scope='module')
def stack(tmp_path_factory, postgresql_server_url, rabbit_url):
    """This module's own stack: a file backend, so the backup host can read volumes."""
    workdir = tmp_path_factory.mktemp('clients-backups')

    def configure(made):
        made.update_config('file', volume_driver='file', target_helper='fake',
                           file_volume_directory=workdir / 'volumes')
        made.update_config(backup_posix_path=workdir / 'backups',
                           backup_compression_algorithm='zstd')
    with deployed(workdir, server_url=postgresql_server_url, transport_url=rabbit_url,
                  backends=('file',), configure=configure, timeout=STARTUP) as made:
        yield made


@pytest.fixture(scope='module')
def cinder(stack):
    auth = noauth.CinderNoAuthPlugin('admin', PROJECT,
                                     endpoint=f'http://127.0.0.1:{stack.api_port}/v3')
    return cinder_client.Client('3.71', session=session.Session(auth=auth))


def _until(fetch, status, what):
    return settle(fetch, until=lambda r: r.status == status, what=what)


def _volume(cinder, name, size=1):
    volume = cinder.volumes.create(size, name=name)
    return _until(lambda: cinder.volumes.get(volume.id), 'available', f'volume {name}')


def _gone(fetch, what):
    def missing():
        try:
            fetch()
        except (exceptions.NotFound, sdk_exceptions.NotFoundException):
            return True
        return False
    settle(missing, until=bool, what=what)


def test_cinderclient_backup_incremental_restore_export_import_delete(cinder, name):
    volume = _volume(cinder, name)
    backup = cinder.backups.create(volume.id, name=f'{name}-full', description='by cinderclient',
                                   metadata={'k': 'v'})
    backup = _until(lambda: cinder.backups.get(backup.id), 'available', 'the backup')
    assert (backup.name, backup.size, backup.volume_id, backup.is_incremental,
            backup.metadata) == (f'{name}-full', 1, volume.id, False, {'k': 'v'})
    incremental = cinder.backups.create(volume.id, incremental=True, name=f'{name}-inc')
    incremental = _until(lambda: cinder.backups.get(incremental.id), 'available',
                         'the incremental')
    assert incremental.is_incremental is True
    assert cinder.backups.get(backup.id).has_dependent_backups is True
    assert [b.id for b in cinder.backups.list(search_opts={'name': f'{name}-inc'})] == [
        incremental.id]
    with pytest.raises(exceptions.BadRequest, match='Incremental backups exist'):
        cinder.backups.delete(backup)

    restored = cinder.restores.restore(incremental.id, volume.id)
    assert restored.volume_id == volume.id
    _until(lambda: cinder.volumes.get(volume.id), 'available', 'the restored volume')
    created = cinder.restores.restore(backup.id, name=f'{name}-new')
    _until(lambda: cinder.volumes.get(created.volume_id), 'available', 'the new volume')
    assert cinder.volumes.get(created.volume_id).name == f'{name}-new'

    # NOTE(import): a record imports into a deployment that lost the row but kept the
    # objects (tests/functional/e2e/test_backups.py); here the row is still there.
    record = cinder.backups.export_record(incremental.id)
    assert record['backup_service'].endswith('PosixBackupDriver')
    with pytest.raises(exceptions.BadRequest, match='Backup already exists in database'):
        cinder.backups.import_record(record['backup_service'], record['backup_url'])
    for item in (incremental, backup):
        cinder.backups.delete(item)
        _gone(lambda item=item: cinder.backups.get(item.id), 'the backup to go')


@pytest.fixture(scope='module')
def cli(stack):
    assert CINDER is not None, 'cinder CLI not found: pip install -e .[test]'

    def run(*args):
        done = subprocess.run(
            [CINDER, '--os-auth-type', 'noauth', '--os-user-id', 'admin',
             '--os-project-id', PROJECT,
             '--os-endpoint', f'http://127.0.0.1:{stack.api_port}/v3',
             '--os-volume-api-version', '3.71', *args],
            capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, f'{args}: {done.stderr}'
        return done.stdout
    return run


def _fields(table: str) -> dict:
    rows = {}
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip().strip('|').split('|')]
        if len(cells) == 2 and cells[0] not in ('Property', ''):
            rows[cells[0]] = cells[1]
    return rows


def _drop_row(stack, backup_id):
    """Remove a backup's row (and its metadata) from the database, objects kept."""
    engine = sa.create_engine(stack.db_url)
    with engine.begin() as conn:
        conn.execute(sa.text('DELETE FROM backup_metadata WHERE backup_id = :id'),
                     {'id': backup_id})
        conn.execute(sa.text('DELETE FROM backups WHERE id = :id'), {'id': backup_id})
    engine.dispose()


def test_cinder_cli_backup_commands(cli, cinder, stack, name):
    volume = _volume(cinder, name)
    full = _fields(cli('backup-create', '--name', f'{name}-full', volume.id))
    _until(lambda: cinder.backups.get(full['id']), 'available', 'the CLI backup')
    inc = _fields(cli('backup-create', '--incremental', '--name', f'{name}-inc', volume.id))
    inc_row = _until(lambda: cinder.backups.get(inc['id']), 'available', 'the incremental')
    assert inc_row.is_incremental is True
    shown = _fields(cli('backup-show', inc['id']))
    assert (shown['name'], shown['is_incremental']) == (f'{name}-inc', 'True')
    restore = _fields(cli('backup-restore', '--volume', volume.id, inc['id']))
    assert restore['volume_id'] == volume.id
    _until(lambda: cinder.volumes.get(volume.id), 'available', 'the restored volume')
    exported = _fields(cli('backup-export', inc['id']))
    assert exported['backup_service'].endswith('PosixBackupDriver')
    # The row is gone but the objects stay (a deployment that lost its database): the
    # record imports the backup again under its id.
    _drop_row(stack, inc['id'])
    imported = _fields(cli('backup-import', exported['backup_service'],
                           exported['backup_url']))
    assert imported['id'] == inc['id']
    _until(lambda: cinder.backups.get(inc['id']), 'available', 'the import')
    cli('backup-delete', inc['id'])
    _gone(lambda: cinder.backups.get(inc['id']), 'the import to go')
    cli('backup-delete', full['id'])
    _gone(lambda: cinder.backups.get(full['id']), 'the full backup to go')


def test_openstacksdk_backup_restore_delete(stack, name):
    bs = _connect(stack)
    volume = bs.create_volume(size=1, name=name)
    settle(lambda: bs.get_volume(volume.id), until=lambda v: v.status == 'available',
           what='the volume')
    with pytest.raises(sdk_exceptions.BadRequestException, match='No backups available'):
        bs.create_backup(volume_id=volume.id, is_incremental=True)
    backup = bs.create_backup(volume_id=volume.id, name=f'{name}-b')
    backup = settle(lambda: bs.get_backup(backup.id),
                    until=lambda b: b.status == 'available', what='the backup')
    assert (backup.name, backup.size, backup.volume_id) == (f'{name}-b', 1, volume.id)
    assert backup.id in [b.id for b in bs.backups(details=True)]
    bs.restore_backup(backup, volume=volume.id)
    settle(lambda: bs.get_volume(volume.id), until=lambda v: v.status == 'available',
           what='the restored volume')
    bs.delete_backup(backup)
    _gone(lambda: bs.get_backup(backup.id), 'the backup to go')
