"""cinderlike-status upgrade check: each check, and the exit code oslo.upgradecheck derives."""

import json

import pytest

from cinderlike import conf as cl_conf
from cinderlike.cmd import status
from cinderlike.db import migration


@pytest.fixture
def db_url(tmp_path):
    return f'sqlite:///{tmp_path}/cinderlike.sqlite'


def _conf(db_url, **overrides):
    conf = cl_conf.new_conf()
    conf([], project='cinderlike', default_config_files=[])
    conf.set_override('connection', db_url, group='database')
    for name, value in overrides.items():
        conf.set_override(name, value)
    return conf


def test_database_not_migrated_fails(db_url):
    result = status.Checks(_conf(db_url))._check_database()
    assert result.code == status.FAILURE
    assert 'not migrated' in result.details and 'cinderlike-manage db sync' in result.details


def test_database_at_head_passes(db_url):
    migration.upgrade(db_url)
    assert status.Checks(_conf(db_url))._check_database().code == status.SUCCESS


def test_unreachable_database_fails():
    conf = _conf('postgresql+psycopg2://nobody@127.0.0.1:1/none')
    result = status.Checks(conf)._check_database()
    assert result.code == status.FAILURE
    assert 'cannot be reached' in result.details


@pytest.mark.parametrize('interval, code', [(60, status.SUCCESS), (30, status.WARNING)])
def test_periodic_interval(db_url, interval, code):
    conf = _conf(db_url, periodic_interval=interval)
    assert status.Checks(conf)._check_periodic_interval().code == code


@pytest.mark.parametrize('backends, code', [([], status.FAILURE), (['fake-1'], status.SUCCESS)])
def test_enabled_backends(db_url, backends, code):
    conf = _conf(db_url, enabled_backends=backends)
    assert status.Checks(conf)._check_enabled_backends().code == code


def _write_conf(tmp_path, db_url, extra=''):
    path = tmp_path / 'cinderlike.conf'
    path.write_text(f'[DEFAULT]\n{extra}\n[database]\nconnection = {db_url}\n')
    return str(path)


def test_exit_code_is_the_worst_result(tmp_path, db_url, capsys):
    migration.upgrade(db_url)
    config = _write_conf(tmp_path, db_url, 'enabled_backends = fake-1\nperiodic_interval = 30\n'
                                           '[fake-1]\nvolume_driver = fake')
    assert status.main(['--config-file', config, 'upgrade', 'check', '--json']) == 1
    report = json.loads(capsys.readouterr().out)
    assert {c['check']: c['result'] for c in report['checks']} == {
        'Database schema': 0, 'Backup Driver Path': 0, 'Use of Policy File': 0,
        'Removed Drivers': 0, 'Periodic Interval Use': 1, 'Service UUIDs': 0,
        'Enabled backends': 0}


def test_failure_exits_2(tmp_path, db_url, capsys):
    config = _write_conf(tmp_path, db_url)
    assert status.main(['--config-file', config, 'upgrade', 'check']) == 2
    assert 'Failure' in capsys.readouterr().out


# --- Cinder's checks that apply here ------------------------------------------------------

def test_backup_module_path_fails(db_url):
    conf = _conf(db_url)
    conf.set_override('backup_driver', 'cinder.backup.drivers.swift')
    result = status.Checks(conf)._check_backup_module()
    assert (result.code, result.details) == (status.FAILURE, (
        'Backup driver configuration requires the full path to the driver, but current '
        'setting is using only the module path.'))
    conf.set_override('backup_driver', 'cinder.backup.drivers.swift.SwiftBackupDriver')
    assert status.Checks(conf)._check_backup_module().code == status.SUCCESS


def _with_config_file(tmp_path, db_url, text=''):
    path = tmp_path / 'cinderlike.conf'
    path.write_text(f'[database]\nconnection = {db_url}\n{text}')
    conf = cl_conf.new_conf()
    conf(['--config-file', str(path)], project='cinderlike', default_config_files=[])
    return conf


def test_old_policy_json_beside_the_config_warns(tmp_path, db_url):
    conf = _with_config_file(tmp_path, db_url)
    assert status.Checks(conf)._check_policy_file().code == status.SUCCESS
    (tmp_path / 'policy.json').write_text('{}')
    result = status.Checks(conf)._check_policy_file()
    assert result.code == status.WARNING
    assert result.details.startswith('policy.json file is present.')


def test_configured_policy_file_missing_warns(tmp_path, db_url):
    conf = _with_config_file(tmp_path, db_url, '[oslo_policy]\npolicy_file = mine.yaml\n')
    result = status.Checks(conf)._check_policy_file()
    assert result.code == status.WARNING
    assert f"'{tmp_path / 'mine.yaml'}' does not exist" in result.details
    (tmp_path / 'mine.yaml').write_text('{}')
    assert status.Checks(conf)._check_policy_file().code == status.SUCCESS


def test_removed_and_unknown_drivers_fail(tmp_path, db_url):
    conf = _with_config_file(tmp_path, db_url, (
        '[DEFAULT]\nenabled_backends = ok,old\n[ok]\nvolume_driver = fake\n'
        '[old]\nvolume_driver = cinder.volume.drivers.sheepdog.SheepdogDriver\n'))
    result = status.Checks(conf)._check_removed_drivers()
    assert result.code == status.FAILURE
    assert result.details.startswith(
        'Found driver cinder.volume.drivers.sheepdog.SheepdogDriver configured')
    conf = _with_config_file(tmp_path, db_url, (
        '[DEFAULT]\nenabled_backends = a,b\n[a]\nvolume_driver = nope.Driver\n'
        '[b]\nvolume_driver = fake\n'))
    result = status.Checks(conf)._check_removed_drivers()
    assert result.code == status.FAILURE and 'nope.Driver.' in result.details
    conf = _with_config_file(tmp_path, db_url, '[DEFAULT]\nenabled_backends = b\n'
                                               '[b]\nvolume_driver = fake\n')
    assert status.Checks(conf)._check_removed_drivers().code == status.SUCCESS


def test_services_without_uuid_fail_until_migrated(db_url):
    import sqlalchemy as sa

    from cinderlike.db import engine, maintenance, services
    from cinderlike.db.models import Service
    migration.upgrade(db_url)
    database = engine.Database(db_url)
    row = services.register(database, host='n@b', binary='cinder-volume', topic='t',
                            availability_zone='nova')
    conf = _conf(db_url)
    assert status.Checks(conf)._check_service_uuid().code == status.SUCCESS
    with database.writer() as session:
        session.execute(sa.update(Service).where(Service.id == row.id).values(uuid=None))
    result = status.Checks(conf)._check_service_uuid()
    assert result.code == status.FAILURE and 'online_data_migrations' in result.details
    assert maintenance.service_uuids_online_data_migration(database, 50) == (1, 1)
    assert status.Checks(conf)._check_service_uuid().code == status.SUCCESS
