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
    config = _write_conf(tmp_path, db_url, 'enabled_backends = fake-1\nperiodic_interval = 30')
    assert status.main(['--config-file', config, 'upgrade', 'check', '--json']) == 1
    report = json.loads(capsys.readouterr().out)
    assert {c['check']: c['result'] for c in report['checks']} == {
        'Database schema': 0, 'Periodic Interval Use': 1, 'Enabled backends': 0}


def test_failure_exits_2(tmp_path, db_url, capsys):
    config = _write_conf(tmp_path, db_url)
    assert status.main(['--config-file', config, 'upgrade', 'check']) == 2
    assert 'Failure' in capsys.readouterr().out
