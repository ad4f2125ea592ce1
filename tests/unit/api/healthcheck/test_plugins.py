"""api/healthcheck/plugins: oslo.middleware's built-in backends as ours, loaded as its
stevedore manager loads them, with its answers and log lines; other names load from its
entry-point namespace (a third-party plugin, installed here in a temporary directory)."""

import json
import logging
import textwrap

import pytest
import stevedore
from oslo_middleware.healthcheck import disable_by_file, enable_by_files

from cinderlike.api.healthcheck import plugins
from tests.unit.api.healthcheck import compare

OSLO = {'disable_by_file': disable_by_file.DisableByFileHealthcheck,
        'disable_by_files_ports': disable_by_file.DisableByFilesPortsHealthcheck,
        'enable_by_files': enable_by_files.EnableByFilesHealthcheck}


@pytest.fixture
def files(tmp_path):
    """'present' exists, 'absent' does not."""
    (tmp_path / 'present').touch()
    return {'present': str(tmp_path / 'present'), 'absent': str(tmp_path / 'absent')}


def _options(options, files):
    def fill(value):
        return [fill(v) for v in value] if isinstance(value, list) else value.format(**files)
    return {name: fill(value) for name, value in options.items()}


def _answers_and_logs(caplog, conf, port, build):
    """The detailed JSON answer of the app *build* makes, and the warnings and errors logged
    while it was built and answered."""
    caplog.clear()
    app = build(conf)
    answer = compare.call(app, compare.environ(accept='application/json', port=port))
    logged = [(r.levelname, r.getMessage()) for r in caplog.records]
    return compare.steady(answer, True), logged


SCENARIOS = {
    'disable_by_file unset': (['disable_by_file'], {}, '8776'),
    'disable_by_file absent': (['disable_by_file'], {'disable_by_file_path': '{absent}'}, '8776'),
    'disable_by_file present': (['disable_by_file'], {'disable_by_file_path': '{present}'},
                                '8776'),
    'ports present': (['disable_by_files_ports'],
                      {'disable_by_file_paths': ['8776:{present}', '9000:{absent}']}, '8776'),
    'ports absent': (['disable_by_files_ports'],
                     {'disable_by_file_paths': ['8776:{absent}']}, '8776'),
    'ports other port': (['disable_by_files_ports'],
                         {'disable_by_file_paths': ['9000:{present}']}, '8776'),
    'ports empty path': (['disable_by_files_ports'], {'disable_by_file_paths': ['8776:']}, '8776'),
    'ports blank items': (['disable_by_files_ports'],
                          {'disable_by_file_paths': ['  ', ' 8776:{present}']}, '8776'),
    'ports unset': (['disable_by_files_ports'], {}, '8776'),
    'ports no number': (['disable_by_files_ports'], {'disable_by_file_paths': ['api:{present}']},
                        '8776'),
    'ports no colon': (['disable_by_files_ports', 'disable_by_file'],
                       {'disable_by_file_paths': ['{present}']}, '8776'),
    'enable all present': (['enable_by_files'], {'enable_by_file_paths': ['{present}']}, '8776'),
    'enable one missing': (['enable_by_files'],
                           {'enable_by_file_paths': ['{present}', '{absent}']}, '8776'),
    'enable unset': (['enable_by_files'], {}, '8776'),
    'unknown name': (['no_such_plugin', 'disable_by_file'], {}, '8776'),
    'order kept': (['enable_by_files', 'disable_by_files_ports'],
                   {'enable_by_file_paths': ['{absent}'],
                    'disable_by_file_paths': ['8776:{present}']}, '8776'),
    'named twice': (['disable_by_file', 'disable_by_file'],
                    {'disable_by_file_path': '{present}'}, '8776'),
}


@pytest.mark.parametrize('name', SCENARIOS)
def test_built_in_backends_answer_and_log_as_oslo_middleware_s(name, files, caplog):
    backends, options, port = SCENARIOS[name]
    caplog.set_level(logging.WARNING)
    conf = compare.new_conf(backends=backends, detailed=True, **_options(options, files))
    ours = _answers_and_logs(caplog, conf, port, compare.ours)
    theirs = _answers_and_logs(caplog, conf, port, compare.theirs)
    assert ours == theirs


def test_what_the_comparisons_agree_on(files, caplog):
    caplog.set_level(logging.WARNING)
    conf = compare.new_conf(backends=['disable_by_files_ports', 'enable_by_files'],
                            disable_by_file_paths=['8776:' + files['present']],
                            enable_by_file_paths=[files['absent']], detailed=True)
    (status, _, body), logged = _answers_and_logs(caplog, conf, '8776', compare.ours)
    assert status == '503 Service Unavailable'
    assert [(r['reason'], r['details']) for r in json.loads(body)['reasons']] == [
        ('DISABLED BY FILE', ''), ('FILE PATH MISSING', f'File path {files["absent"]} is missing')]
    assert logged == [('WARNING', f'EnableByFiles healthcheck middleware: Path '
                                  f'{files["absent"]} is not present')]
    conf = compare.new_conf(backends=['disable_by_files_ports', 'nothing'],
                            disable_by_file_paths=['http:/x'], detailed=True)
    _, [error, (level, missing)] = _answers_and_logs(caplog, conf, '8776', compare.ours)
    assert error == ('ERROR', "Could not load 'disable_by_files_ports': invalid literal for "
                              "int() with base 10: 'http'")
    # one line for every name that loaded nothing, in a set's order
    assert level == 'WARNING' and missing.startswith('Could not load ')
    assert set(missing.removeprefix('Could not load ').split(', ')) == {
        'disable_by_files_ports', 'nothing'}


@pytest.mark.parametrize('name, options, port', [
    ('disable_by_file', {}, 8776),
    ('disable_by_file', {'disable_by_file_path': '{absent}'}, 8776),
    ('disable_by_file', {'disable_by_file_path': '{present}'}, 8776),
    ('disable_by_files_ports', {'disable_by_file_paths': ['8776:{present}']}, 8776),
    ('disable_by_files_ports', {'disable_by_file_paths': ['8776:{absent}']}, 8776),
    ('disable_by_files_ports', {'disable_by_file_paths': ['8776:{present}']}, 9000),
    ('enable_by_files', {'enable_by_file_paths': ['{present}']}, 8776),
    ('enable_by_files', {'enable_by_file_paths': ['{present}', '{absent}']}, 8776),
])
def test_each_result_is_oslo_middleware_s(name, options, port, files):
    """available, reason and details (None where oslo.middleware gives none)."""
    conf = compare.new_conf(**_options(options, files))
    ours = plugins.BUILT_IN[name](conf).healthcheck(port)
    theirs = OSLO[name](conf, {}).healthcheck(port)
    assert (type(ours).__name__, vars(ours)) == (type(theirs).__name__, vars(theirs))


THIRD_PARTY = '''
    from oslo_middleware.healthcheck import opts, pluginbase


    class AcmeCheck(pluginbase.HealthcheckBaseExtension):
        def __init__(self, oslo_conf, conf):
            super().__init__(oslo_conf, conf)
            # oslo.middleware's own options, registered again over ours
            self.oslo_conf.register_opts(opts.HEALTHCHECK_OPTS, group='healthcheck')
            self.oslo_conf.register_opts(opts.DISABLE_BY_FILE_OPTS, group='healthcheck')

        def healthcheck(self, server_port):
            return pluginbase.HealthcheckResult(
                available=server_port != 9999, reason='ACME',
                details=f'port {server_port}, {self._conf_get("disable_by_file_path")}')


    class Broken(pluginbase.HealthcheckBaseExtension):
        def __init__(self, oslo_conf, conf):
            raise RuntimeError('no acme here')

        def healthcheck(self, server_port):
            raise AssertionError('never built')
'''


@pytest.fixture
def third_party(tmp_path, monkeypatch):
    """A distribution `acme-healthcheck` with two plugins in oslo.middleware's namespace."""
    (tmp_path / 'acme_healthcheck.py').write_text(textwrap.dedent(THIRD_PARTY))
    dist = tmp_path / 'acme_healthcheck-1.0.dist-info'
    dist.mkdir()
    (dist / 'METADATA').write_text('Metadata-Version: 2.1\nName: acme-healthcheck\n'
                                   'Version: 1.0\n')
    (dist / 'entry_points.txt').write_text(f'[{plugins.NAMESPACE}]\n'
                                           'acme = acme_healthcheck:AcmeCheck\n'
                                           'broken = acme_healthcheck:Broken\n')
    monkeypatch.syspath_prepend(str(tmp_path))
    # stevedore keeps each namespace's entry points for the process's life
    monkeypatch.setattr(stevedore.ExtensionManager, 'ENTRY_POINT_CACHE', {})


@pytest.mark.parametrize('port', ['8776', '9999'])
def test_third_party_plugins_load_from_the_entry_points(third_party, files, caplog, port):
    caplog.set_level(logging.WARNING)
    conf = compare.new_conf(backends=['acme', 'disable_by_file', 'broken'], detailed=True,
                            disable_by_file_path=files['absent'])
    ours = _answers_and_logs(caplog, conf, port, compare.ours)
    theirs = _answers_and_logs(caplog, conf, port, compare.theirs)
    assert ours == theirs
    (status, _, body), logged = ours
    assert status == ('503 Service Unavailable' if port == '9999' else '200 OK')
    assert [r['reason'] for r in json.loads(body)['reasons']] == ['ACME', 'OK']
    assert logged == [('ERROR', "Could not load 'broken': no acme here"),
                      ('WARNING', 'Could not load broken')]
