"""cinderlike-manage against SQLite: db sync/version as an operator runs them, service list/remove.

The console script is run as a subprocess; the other actions call main() in-process.
"""

import datetime
import pathlib
import subprocess
import sys

import pytest
import sqlalchemy as sa

from cinderlike.cmd import manage
from cinderlike.db import engine, migration, services
from cinderlike.db.models import Service, utcnow

SCRIPT = pathlib.Path(sys.executable).parent / 'cinderlike-manage'


@pytest.fixture
def config(tmp_path):
    """A config file whose [database] connection is a new SQLite file; returns (path, url)."""
    url = f'sqlite:///{tmp_path}/cinderlike.sqlite'
    path = tmp_path / 'cinderlike.conf'
    path.write_text(f'[DEFAULT]\nservice_down_time = 60\n\n[database]\nconnection = {url}\n')
    return str(path), url


def _manage(config_path, *argv):
    return manage.main(['cinderlike-manage', '--config-file', config_path, *argv])


def _run(config_path, *argv):
    return subprocess.run([str(SCRIPT), '--config-file', config_path, *argv],
                          capture_output=True, text=True, timeout=120, check=False)


def test_db_sync_then_db_version_from_the_console_script(config):
    path, url = config
    assert SCRIPT.exists(), 'run `.venv/bin/pip install -e . --no-deps` to install it'
    before = _run(path, 'db', 'version')
    assert (before.returncode, before.stdout) == (0, 'None\n')
    synced = _run(path, 'db', 'sync')
    assert synced.returncode == 0, synced.stderr
    after = _run(path, 'db', 'version')
    assert (after.returncode, after.stdout) == (0, f'{migration.head()}\n')
    assert migration.current(url) == migration.head()


def test_db_sync_refuses_a_numeric_version_with_exit_1(config, capsys):
    path, url = config
    assert _manage(path, 'db', 'sync', '42') == 1
    assert 'Error during database migration' in capsys.readouterr().out
    assert migration.current(url) is None


def test_no_category_prints_usage_and_exits_2(capsys):
    assert manage.main(['cinderlike-manage']) == 2
    assert 'Available categories:' in capsys.readouterr().out


def test_missing_config_file_exits_2(tmp_path, capsys):
    missing = str(tmp_path / 'nope.conf')
    assert manage.main(['cinderlike-manage', '--config-file', missing, 'db', 'version']) == 2
    assert 'Failed to read configuration file(s)' in capsys.readouterr().out


@pytest.fixture
def migrated(config):
    path, url = config
    migration.upgrade(url)
    database = engine.Database(url)
    yield path, database
    database.dispose()


def _beat_long_ago(database, service_id):
    with database.writer() as session:
        session.execute(sa.update(Service).where(Service.id == service_id).values(
            updated_at=utcnow() - datetime.timedelta(hours=1)))


def test_service_list_shows_state_status_and_cluster(migrated, capsys):
    path, database = migrated
    up = services.register(database, host='node1@lvm', binary='cinder-volume',
                           topic='cinder-volume', availability_zone='az1',
                           cluster_name='c1@lvm', rpc_version='3.20')
    services.heartbeat(database, up.id)
    down = services.register(database, host='node2', binary='cinder-scheduler',
                             topic='cinder-scheduler', availability_zone='az1')
    services.set_disabled(database, host='node2', binary='cinder-scheduler', disabled=True)
    _beat_long_ago(database, down.id)
    assert _manage(path, 'service', 'list') == 0
    header, *rows = capsys.readouterr().out.splitlines()
    assert header.split() == ['Binary', 'Host', 'Zone', 'Status', 'State', 'Updated', 'At',
                              'RPC', 'Version', 'Cluster']
    # Updated At is a date and a time: two fields once split.
    fields = [row.split() for row in rows]
    assert [f[:5] + f[7:] for f in fields] == [
        ['cinder-volume', 'node1@lvm', 'az1', 'enabled', ':-)', '3.20', 'c1@lvm'],
        ['cinder-scheduler', 'node2', 'az1', 'disabled', 'XXX', 'None'],
    ]

def test_service_remove_deletes_the_row_and_unknown_exits_2(migrated, capsys):
    path, database = migrated
    services.register(database, host='node1@lvm', binary='cinder-volume',
                      topic='cinder-volume', availability_zone='az1')
    assert _manage(path, 'service', 'remove', 'cinder-volume', 'node1@lvm') == 0
    assert 'Service cinder-volume on host node1@lvm removed.' in capsys.readouterr().out
    assert services.get_all(database) == []
    assert _manage(path, 'service', 'remove', 'cinder-volume', 'node1@lvm') == 2
    assert 'Host not found. Failed to remove cinder-volume on node1@lvm.' in (
        capsys.readouterr().out)
