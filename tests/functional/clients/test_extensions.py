"""Cinder's extension list read by python-cinderclient against the four daemons: the library's
`list_extensions` manager and `cinder list-extensions`, both with cinderclient's noauth."""

import pathlib
import shutil
import subprocess
import sys

import pytest
from cinderclient import client as cinder_client
from cinderclient import extension
from cinderclient.contrib import noauth
from cinderclient.v3.contrib import list_extensions
from keystoneauth1 import session

from tests.functional.e2e.stack import PROJECT

pytestmark = [pytest.mark.rabbit, pytest.mark.postgresql]

CINDER = shutil.which('cinder', path=str(pathlib.Path(sys.executable).parent))


@pytest.fixture(scope='module')
def endpoint(stack):
    return f'http://127.0.0.1:{stack.api_port}/v3'


def test_library_lists_every_extension(endpoint):
    auth = noauth.CinderNoAuthPlugin('admin', PROJECT, endpoint=endpoint)
    cinder = cinder_client.Client(
        '3.71', session=session.Session(auth=auth),
        extensions=[extension.Extension('list_extensions', list_extensions)])
    found = {ext.alias: ext for ext in cinder.list_extensions.show_all()}
    assert len(found) == 32
    hosts = found['os-hosts']
    assert (hosts.name, hosts.summary, hosts.updated, hosts.links) == (
        'Hosts', 'Admin-only host administration.', '2011-06-29T00:00:00+00:00', [])
    assert found['os-vol-tenant-attr'].name == 'VolumeTenantAttribute'
    assert found['OS-SCH-HNT'].summary == 'Pass arbitrary key/value pairs to the scheduler.'


def test_cli_prints_the_extension_table(endpoint):
    # python-cinderclient is in the test extra: missing means a broken install, not a skip.
    assert CINDER is not None, 'cinder CLI not found: pip install -e .[test]'
    done = subprocess.run(
        [CINDER, '--os-auth-type', 'noauth', '--os-user-id', 'admin',
         '--os-project-id', PROJECT, '--os-endpoint', endpoint,
         '--os-volume-api-version', '3.71', 'list-extensions'],
        capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    rows = {}
    for line in done.stdout.splitlines():
        cells = [cell.strip() for cell in line.strip('|').split('|')]
        if len(cells) == 4 and line.startswith('|'):
            rows[cells[2]] = cells
    header = rows.pop('Alias')
    assert header == ['Name', 'Summary', 'Alias', 'Updated']
    assert len(rows) == 32
    assert rows['os-volume-type-access'] == [
        'VolumeTypeAccess', 'Volume type access support.', 'os-volume-type-access',
        '2014-06-26T00:00:00Z']
    assert rows['os-vol-mig-status-attr'][0] == 'VolumeMigStatusAttribute'
