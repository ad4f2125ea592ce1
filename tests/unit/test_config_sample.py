"""The committed etc/cinderlike/cinderlike.conf.sample matches what the generator writes now."""

import difflib
import pathlib
import socket

from oslo_config import generator

ROOT = pathlib.Path(__file__).resolve().parents[2]
GENERATOR_CONF = ROOT / 'etc' / 'cinderlike' / 'cinderlike-config-generator.conf'
SAMPLE = ROOT / 'etc' / 'cinderlike' / 'cinderlike.conf.sample'


def _generate(output):
    generator.main(['--config-file', str(GENERATOR_CONF), '--output-file', str(output)])
    return output.read_text()


def test_sample_holds_nothing_of_this_machine(tmp_path):
    """Defaults computed at import time (host name, CPU count) need a sample_default."""
    lines = _generate(tmp_path / 'cinderlike.conf.sample').splitlines()
    leaked = [line for line in lines
              if line.startswith('#') and line.endswith(f' = {socket.gethostname()}')]
    assert leaked == []


def test_committed_sample_is_current(tmp_path):
    fresh = _generate(tmp_path / 'cinderlike.conf.sample')
    committed = SAMPLE.read_text() if SAMPLE.exists() else ''
    diff = ''.join(difflib.unified_diff(committed.splitlines(True), fresh.splitlines(True),
                                        'committed', 'generated', n=1))
    assert not diff, (f'{SAMPLE.relative_to(ROOT)} is stale: run `tox -e genconfig` or '
                      f'`make genconfig` and commit the result.\n{diff[:4000]}')
