"""The `openstack` CLI's snapshot, transfer and backup commands, which go through openstacksdk
and its version discovery and so need Keystone: a snapshot's life, a volume offered by one
project and accepted by another, and a backup's life.
"""

import uuid

import pytest

from tests.functional.clients.helpers import settle

pytestmark = [pytest.mark.rabbit, pytest.mark.postgresql]


@pytest.fixture(scope='module')
def member(keystone):
    return keystone.users['member']


@pytest.fixture(scope='module')
def recipient(keystone):
    """A member of a project of its own, to accept transfers into."""
    suffix = uuid.uuid4().hex[:8]
    return keystone.user(f'cl-recipient-{suffix}', project_name=f'cl-recipient-{suffix}',
                         roles=('member',))


def _available_volume(openstack_cli, user, name):
    volume_id = openstack_cli(user, 'volume', 'create', '--size', '1', name, '-f', 'json')['id']
    settle(lambda: openstack_cli(user, 'volume', 'show', volume_id, '-f', 'json'),
           until=lambda v: v['status'] == 'available', what=f'volume {volume_id}')
    return volume_id


def _deleted(openstack_cli, user, *args):
    """Wait until `openstack <args> list -f json` no longer lists what was deleted."""
    settle(lambda: not openstack_cli(user, *args, '-f', 'json'), until=bool,
           what=f'{args} to come back empty')


def test_snapshot_create_set_show_list_delete(openstack_cli, member, name):
    volume_id = _available_volume(openstack_cli, member, name)
    created = openstack_cli(member, 'volume', 'snapshot', 'create', '--volume', volume_id,
                            '--property', 'p=1', f'{name}-snap', '-f', 'json')
    snapshot_id = created['id']

    def show():
        return openstack_cli(member, 'volume', 'snapshot', 'show', snapshot_id, '-f', 'json')
    settle(show, until=lambda s: s['status'] == 'available', what=f'snapshot {snapshot_id}')
    openstack_cli(member, 'volume', 'snapshot', 'set', '--name', f'{name}-snap2',
                  '--property', 'q=2', snapshot_id)
    shown = show()
    assert (shown['name'], shown['volume_id'], shown['size']) == (f'{name}-snap2', volume_id, 1)
    assert shown['properties'] == {'p': '1', 'q': '2'}
    listed = openstack_cli(member, 'volume', 'snapshot', 'list', '--volume', volume_id,
                           '-f', 'json')
    assert [(s['ID'], s['Name'], s['Status']) for s in listed] == [
        (snapshot_id, f'{name}-snap2', 'available')]

    openstack_cli(member, 'volume', 'snapshot', 'delete', snapshot_id)
    _deleted(openstack_cli, member, 'volume', 'snapshot', 'list', '--volume', volume_id)
    openstack_cli(member, 'volume', 'delete', volume_id)
    _deleted(openstack_cli, member, 'volume', 'list', '--name', name)


def test_transfer_offered_by_one_project_accepted_by_another(openstack_cli, member, recipient,
                                                            name):
    volume_id = _available_volume(openstack_cli, member, name)
    offer = openstack_cli(member, 'volume', 'transfer', 'request', 'create', '--name', name,
                          volume_id, '-f', 'json')
    assert offer['volume_id'] == volume_id and offer['auth_key']
    listed = openstack_cli(member, 'volume', 'transfer', 'request', 'list', '-f', 'json')
    assert [(t['ID'], t['Volume']) for t in listed if t['Name'] == name] == [
        (offer['id'], volume_id)]
    assert openstack_cli(member, 'volume', 'show', volume_id, '-f', 'json')['status'] == (
        'awaiting-transfer')

    accepted = openstack_cli(recipient, 'volume', 'transfer', 'request', 'accept',
                             '--auth-key', offer['auth_key'], offer['id'], '-f', 'json')
    assert accepted['volume_id'] == volume_id
    shown = openstack_cli(recipient, 'volume', 'show', volume_id, '-f', 'json')
    assert shown['status'] == 'available'
    assert not openstack_cli(member, 'volume', 'list', '--name', name, '-f', 'json')

    openstack_cli(recipient, 'volume', 'delete', volume_id)
    _deleted(openstack_cli, recipient, 'volume', 'list', '--name', name)


def test_backup_create_show_list_set_delete(openstack_cli, keystone, member, name):
    """`openstack volume backup` against the API. This stack's backends are the fake driver,
    whose volumes no host can open, so the backup ends `error` with the reason (the data
    path is tests/functional/e2e/test_backups.py); an admin then sets it available."""
    volume_id = _available_volume(openstack_cli, member, name)
    created = openstack_cli(member, 'volume', 'backup', 'create', '--name', f'{name}-b',
                            volume_id, '-f', 'json')
    backup_id = created['id']

    def show(user=member):
        return openstack_cli(user, 'volume', 'backup', 'show', backup_id, '-f', 'json')
    shown = settle(show, until=lambda b: b['status'] == 'error', what=f'backup {backup_id}')
    assert (shown['name'], shown['volume_id'], shown['size']) == (f'{name}-b', volume_id, 1)
    assert 'fake' in shown['fail_reason']
    listed = openstack_cli(member, 'volume', 'backup', 'list', '--name', f'{name}-b',
                           '-f', 'json')
    assert [(b['ID'], b['Status']) for b in listed] == [(backup_id, 'error')]
    openstack_cli(keystone.admin, 'volume', 'backup', 'set', '--state', 'available', backup_id)
    settle(show, until=lambda b: b['status'] == 'available', what='the reset backup')
    openstack_cli(member, 'volume', 'backup', 'delete', backup_id)
    _deleted(openstack_cli, member, 'volume', 'backup', 'list', '--name', f'{name}-b')
    openstack_cli(member, 'volume', 'delete', volume_id)
    _deleted(openstack_cli, member, 'volume', 'list', '--name', name)
