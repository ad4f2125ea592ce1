"""`openstack volume service list / set` (through openstacksdk, so under Keystone): the
services of the four daemons, disabled with a reason and enabled again."""

import pytest

pytestmark = [pytest.mark.rabbit, pytest.mark.postgresql]


def test_volume_service_list_and_set(stack, keystone, openstack_cli):
    admin = keystone.admin
    listed = openstack_cli(admin, 'volume', 'service', 'list', '--long', '-f', 'json')
    assert {(s['Binary'], s['Host']) for s in listed} == stack.expected_services()
    assert {s['State'] for s in listed} == {'up'}
    openstack_cli(admin, 'volume', 'service', 'set', '--disable', '--disable-reason',
                  'maintenance', stack.host, 'cinder-backup')
    (backup,) = [s for s in openstack_cli(admin, 'volume', 'service', 'list', '--long',
                                          '--service', 'cinder-backup', '-f', 'json')]
    assert (backup['Status'], backup['Disabled Reason']) == ('disabled', 'maintenance')
    openstack_cli(admin, 'volume', 'service', 'set', '--enable', stack.host, 'cinder-backup')
    assert stack.services()[('cinder-backup', stack.host)]['status'] == 'enabled'
