"""The committed etc/cinderlike/policy.yaml.sample matches what oslopolicy-sample-generator
writes now from the registered defaults."""

import configparser
import difflib
import pathlib

from oslo_policy import generator

ROOT = pathlib.Path(__file__).resolve().parents[3]
GENERATOR_CONF = ROOT / 'etc' / 'cinderlike' / 'cinderlike-policy-generator.conf'


def _sample_path() -> pathlib.Path:
    """Where the generator config says the sample goes."""
    parser = configparser.ConfigParser()
    parser.read(GENERATOR_CONF)
    return ROOT / parser['DEFAULT']['output_file']


def test_generator_writes_the_sample_under_etc():
    assert _sample_path() == ROOT / 'etc' / 'cinderlike' / 'policy.yaml.sample'


def test_committed_policy_sample_is_current(tmp_path):
    output = tmp_path / 'policy.yaml.sample'
    generator.generate_sample(['--config-file', str(GENERATOR_CONF),
                               '--output-file', str(output)])
    fresh = output.read_text()
    sample = _sample_path()
    committed = sample.read_text() if sample.exists() else ''
    diff = ''.join(difflib.unified_diff(committed.splitlines(True), fresh.splitlines(True),
                                        'committed', 'generated', n=1))
    assert not diff, (f'{sample.relative_to(ROOT)} is stale: run `make genpolicy` (or '
                      f'`tox -e genpolicy`) and commit the result.\n{diff[:4000]}')
