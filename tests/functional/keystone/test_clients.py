"""python-cinderclient (library and `cinder` CLI), openstacksdk and the `openstack` CLI with
password authentication against the real Keystone, finding the API through its catalog."""

import subprocess

import openstack
import pytest
from cinderclient import client as cinder_client
from cinderclient import exceptions

from tests.fixtures.keystone import DOMAIN, REGION
from tests.functional.clients.helpers import SETTLE, settle
from tests.functional.keystone.helpers import cli_path, os_env

pytestmark = [pytest.mark.rabbit, pytest.mark.postgresql]


@pytest.fixture(scope='module')
def member(keystone):
    return keystone.users['member']


def test_catalog_lists_the_api_under_both_service_types(stack, keystone, member):
    sess = keystone.session(member)
    for service_type in ('block-storage', 'volumev3'):
        assert sess.get_endpoint(service_type=service_type, interface='public') == (
            f'{stack.api_url}/v3/{member.project_id}')


def test_cinderclient_library_with_a_password_session(keystone, member, name):
    cinder = cinder_client.Client('3.71', session=keystone.session(member))
    volume = cinder.volumes.create(1, name=name)
    volume = settle(lambda: cinder.volumes.get(volume.id), until=lambda v: v.status == 'available',
                    what=f'volume {volume.id} to be available')
    assert getattr(volume, 'os-vol-tenant-attr:tenant_id') == member.project_id
    assert [v.id for v in cinder.volumes.list(search_opts={'name': name})] == [volume.id]
    cinder.volumes.delete(volume)
    settle(lambda: not cinder.volumes.list(search_opts={'name': name}), until=bool,
           what=f'volume {volume.id} to be deleted')
    with pytest.raises(exceptions.NotFound):
        cinder.volumes.get(volume.id)


def _table(output: str) -> dict[str, str]:
    """The `| Property | Value |` table the cinder CLI prints, as a dict."""
    rows = [line.split('|') for line in output.splitlines() if line.startswith('|')]
    return {cells[1].strip(): cells[2].strip() for cells in rows[1:]}


def test_cinder_cli_with_os_variables(keystone, member, name):
    cinder = cli_path('cinder')

    def run(*args):
        done = subprocess.run([cinder, '--os-volume-api-version', '3.71', *args],
                              env=os_env(keystone, member),
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, f'{args}: {done.stderr}'
        return done.stdout

    created = _table(run('create', '--name', name, '1'))
    volume_id = created['id']
    shown = settle(lambda: _table(run('show', volume_id)),
                   until=lambda v: v['status'] == 'available',
                   what=f'volume {volume_id} to be available')
    assert (shown['name'], shown['size'], shown['os-vol-tenant-attr:tenant_id']) == (
        name, '1', member.project_id)
    assert volume_id in run('list', '--name', name)
    run('delete', volume_id)
    settle(lambda: volume_id not in run('list', '--name', name), until=bool,
           what=f'volume {volume_id} to be deleted')


def test_openstacksdk_connect_with_auth(keystone, member, name):
    conn = openstack.connect(auth_url=keystone.auth_url, username=member.name,
                             password=member.password, project_name=member.project_name,
                             user_domain_name=DOMAIN, project_domain_name=DOMAIN,
                             region_name=REGION)
    volume = conn.block_storage.create_volume(size=1, name=name)
    volume = conn.block_storage.wait_for_status(volume, 'available', wait=SETTLE)
    assert (volume.name, volume.size, volume.project_id) == (name, 1, member.project_id)
    assert [v.id for v in conn.block_storage.volumes(name=name)] == [volume.id]
    conn.block_storage.delete_volume(volume)
    conn.block_storage.wait_for_delete(volume, wait=SETTLE)
    assert conn.block_storage.find_volume(volume.id) is None


def test_openstack_cli_with_os_variables(openstack_cli, member, name):
    def show():
        return openstack_cli(member, 'volume', 'show', volume_id, '-f', 'json')

    volume_id = openstack_cli(member, 'volume', 'create', '--size', '1', name, '-f', 'json')['id']
    shown = settle(show, until=lambda v: v['status'] == 'available',
                   what=f'volume {volume_id} to be available')
    assert (shown['name'], shown['size']) == (name, 1)
    listed = openstack_cli(member, 'volume', 'list', '--name', name, '-f', 'json')
    assert [(v['ID'], v['Status']) for v in listed] == [(volume_id, 'available')]
    openstack_cli(member, 'volume', 'delete', volume_id)
    settle(lambda: not openstack_cli(member, 'volume', 'list', '--name', name, '-f', 'json'),
           until=bool, what=f'volume {volume_id} to be deleted')
