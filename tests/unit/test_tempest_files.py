"""tools/tempest and tools/service_venv.py: the exclude list gives a reason for every test it
sets aside, the tempest.conf template takes what run.py fills in, venvs install only on change."""

import importlib.util
import pathlib
import re
import string

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
TEMPEST = ROOT / 'tools' / 'tempest'


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


run = _load('tempest_run', TEMPEST / 'run.py')
service_venv = _load('service_venv', ROOT / 'tools' / 'service_venv.py')


def _exclusions():
    """(regex, reason) of each line of exclude.txt that is not blank or a comment."""
    for line in (TEMPEST / 'exclude.txt').read_text().splitlines():
        regex, _sep, reason = line.partition('#')
        if regex.strip():
            yield regex.strip(), reason.strip()


def test_every_exclusion_is_a_test_of_the_selection_with_its_reason():
    exclusions = list(_exclusions())
    assert exclusions
    for regex, reason in exclusions:
        assert reason, f'{regex} has no reason'
        assert re.match(r'\^(tempest|cinder_tempest_plugin)\\\.api\\\.volume\\\.', regex), regex
        re.compile(regex)


def test_the_template_takes_exactly_what_run_fills_in(tmp_path):
    class FakeKeystone:
        auth_url = 'http://127.0.0.1:5000/v3'

    (tmp_path / 'etc').mkdir()
    run._write_config(tmp_path, FakeKeystone())
    written = (tmp_path / 'etc' / 'tempest.conf').read_text()
    assert 'uri_v3 = http://127.0.0.1:5000/v3' in written
    assert 'backend_names = b1,b2' in written
    assert '$' not in written
    names = {m.group('named') or m.group('braced') for m in string.Template.pattern.finditer(
        (TEMPEST / 'tempest.conf.in').read_text()) if m.group('named') or m.group('braced')}
    assert names == {'log_file', 'admin_password', 'auth_url', 'region', 'backend_names'}


def test_totals_are_read_from_the_end_of_tempest_run():
    output = ('Totals\n======\nRan: 150 tests in 90.0 sec.\n - Passed: 120\n - Skipped: 28\n'
              ' - Expected Fail: 0\n - Unexpected Success: 0\n - Failed: 2\n')
    assert dict(run._TOTAL_RE.findall(output)) == {
        'Passed': '120', 'Skipped': '28', 'Expected Fail': '0', 'Unexpected Success': '0',
        'Failed': '2'}


def test_run_needs_a_database_and_a_broker(monkeypatch, capsys):
    monkeypatch.delenv('CINDERLIKE_TEST_POSTGRESQL_URL', raising=False)
    monkeypatch.delenv('CINDERLIKE_TEST_RABBIT_URL', raising=False)
    with pytest.raises(SystemExit) as exit_info:
        run.main([])
    assert exit_info.value.code == 2
    assert 'a database server and a RabbitMQ are needed' in capsys.readouterr().err


@pytest.fixture
def installs(monkeypatch):
    """The venv creations and pip runs service_venv.ensure asks for, recorded, not done."""
    calls = []

    def create(target):
        target.mkdir()
        calls.append(('create', target))
    monkeypatch.setattr(service_venv.bootstrap_venv, 'create', create)
    monkeypatch.setattr(service_venv.subprocess, 'run',
                        lambda args, check: calls.append(('pip', args[-1])))
    return calls


def test_venv_is_made_and_installed_once_per_requirements_text(tmp_path, installs):
    requirements = tmp_path / 'requirements.txt'
    requirements.write_text('keystone==30.0.0\n')
    target = tmp_path / 'venv'
    assert service_venv.ensure(target, requirements) == target / 'bin'
    assert installs == [('create', target), ('pip', str(requirements))]
    service_venv.ensure(target, requirements)
    assert len(installs) == 2

    # a changed pin installs again, into the venv already there
    (target / 'bin').mkdir()
    (target / 'bin' / 'python').write_text('')
    requirements.write_text('keystone==30.0.1\n')
    service_venv.ensure(target, requirements)
    assert installs[2:] == [('pip', str(requirements))]
    assert (target / service_venv.STAMP).read_text() == 'keystone==30.0.1\n'
