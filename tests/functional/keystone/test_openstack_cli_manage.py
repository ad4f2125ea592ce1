"""The `openstack` CLI's manage commands (openstacksdk with version discovery, so through
Keystone) as an admin on the fake backends: `volume delete --remote` unmanages,
`block storage volume manageable list` shows what it left, `volume create --remote-source
--host` manages it again; the same for snapshots (`volume snapshot delete --remote`,
`block storage snapshot manageable list`, `volume snapshot create --remote-source`)."""

import pytest

from tests.functional.clients.helpers import settle
from tests.functional.keystone.test_openstack_cli import _available_volume

pytestmark = [pytest.mark.rabbit, pytest.mark.postgresql]


def _show(openstack_cli, admin, *args):
    return openstack_cli(admin, *args, '-f', 'json')


def _gone(openstack_cli, admin, kind, resource_id):
    listed = lambda: [r['ID'] for r in openstack_cli(  # noqa: E731
        admin, *kind, 'list', '--all-projects', '-f', 'json')]
    settle(lambda: resource_id not in listed(), until=bool, what=f'{resource_id} to go')


def test_unmanage_list_and_manage_volumes_and_snapshots(openstack_cli, keystone, name):
    admin = keystone.admin
    volume_id = _available_volume(openstack_cli, admin, name)
    host = _show(openstack_cli, admin, 'volume', 'show', volume_id)['os-vol-host-attr:host']
    backend = host.partition('#')[0]

    openstack_cli(admin, 'volume', 'delete', '--remote', volume_id)
    _gone(openstack_cli, admin, ('volume',), volume_id)
    listed = _show(openstack_cli, admin, '--os-volume-api-version', '3.8', 'block', 'storage',
                   'volume', 'manageable', 'list', backend, '--long')
    (entry,) = [e for e in listed if e['reference'] == {'source-name': f'volume-{volume_id}'}]
    assert (entry['size'], entry['safe_to_manage'], entry['cinder_id']) == (1, True, None)

    # NOTE(bootable): without --bootable/--non-bootable the CLI sends "bootable": null,
    # which Cinder's schema (and so ours) refuses with a 400.
    adopted = _show(openstack_cli, admin, 'volume', 'create', '--remote-source',
                    f'source-name=volume-{volume_id}', '--host', backend, '--non-bootable',
                    f'{name}-adopted')
    adopted = settle(lambda: _show(openstack_cli, admin, 'volume', 'show', adopted['id']),
                     until=lambda v: v['status'] == 'available', what='the manage')
    assert (adopted['size'], adopted['name']) == (1, f'{name}-adopted')

    snapshot_id = _show(openstack_cli, admin, 'volume', 'snapshot', 'create', '--volume',
                        adopted['id'], f'{name}-snap')['id']
    settle(lambda: _show(openstack_cli, admin, 'volume', 'snapshot', 'show', snapshot_id),
           until=lambda s: s['status'] == 'available', what='the snapshot')
    openstack_cli(admin, 'volume', 'snapshot', 'delete', '--remote', snapshot_id)
    _gone(openstack_cli, admin, ('volume', 'snapshot'), snapshot_id)
    snapshots = _show(openstack_cli, admin, '--os-volume-api-version', '3.8', 'block',
                      'storage', 'snapshot', 'manageable', 'list', backend)
    assert {'source-name': f'snapshot-{snapshot_id}'} in [e['reference'] for e in snapshots]
    again = _show(openstack_cli, admin, 'volume', 'snapshot', 'create', '--volume',
                  adopted['id'], '--remote-source', f'source-name=snapshot-{snapshot_id}',
                  f'{name}-again')
    settle(lambda: _show(openstack_cli, admin, 'volume', 'snapshot', 'show', again['id']),
           until=lambda s: s['status'] == 'available', what='the snapshot manage')
    openstack_cli(admin, 'volume', 'snapshot', 'delete', again['id'])
    _gone(openstack_cli, admin, ('volume', 'snapshot'), again['id'])
    openstack_cli(admin, 'volume', 'delete', adopted['id'])
