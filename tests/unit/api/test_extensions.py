"""GET /extensions and /extensions/{alias}: Cinder's 32 contrib extensions, for any caller."""

import datetime

import pytest

from tests.unit.api.type_fixtures import PROJECT, admin, user
from tests.unit.api.volume_fixtures import fault

# The aliases of Cinder's api-ref sample (api-ref/source/v3/samples/extensions/).
CINDER_ALIASES = {
    'os-hosts', 'os-vol-tenant-attr', 'os-quota-sets', 'os-availability-zone',
    'os-volume-encryption-metadata', 'backups', 'os-snapshot-actions', 'os-volume-actions',
    'os-snapshot-manage', 'os-volume-unmanage', 'consistencygroups', 'os-vol-host-attr',
    'encryption', 'os-vol-image-meta', 'os-types-manage', 'capabilities', 'cgsnapshots',
    'os-types-extra-specs', 'os-used-limits', 'os-vol-mig-status-attr', 'os-volume-type-access',
    'os-extended-services', 'os-extended-snapshot-attributes', 'os-snapshot-unmanage',
    'qos-specs', 'os-quota-class-sets', 'os-volume-transfer', 'os-volume-manage',
    'os-admin-actions', 'os-services', 'scheduler-stats', 'OS-SCH-HNT'}
HOSTS = {'name': 'Hosts', 'alias': 'os-hosts', 'description': 'Admin-only host administration.',
         'updated': '2011-06-29T00:00:00+00:00', 'links': []}


@pytest.mark.parametrize('path', ['/v3/extensions', f'/v3/{PROJECT}/extensions'])
def test_any_member_lists_cinders_extensions(kclient, path):
    resp = kclient.simulate_get(path, headers=user(roles='reader'))
    assert resp.status_code == 200
    listed = resp.json['extensions']
    assert {e['alias'] for e in listed} == CINDER_ALIASES and len(listed) == 32
    assert HOSTS in listed
    for extension in listed:
        # tempest's list_extensions schema: these keys, and an ISO 8601 `updated`.
        assert set(extension) == {'name', 'alias', 'description', 'updated', 'links'}
        assert extension['links'] == [] and extension['description']
        datetime.datetime.fromisoformat(extension['updated'].replace('Z', '+00:00'))


def test_descriptions_are_cinders_docstrings(vclient):
    listed = {e['alias']: e for e in vclient.simulate_get(
        '/v3/extensions', headers=admin()).json['extensions']}
    assert listed['os-vol-tenant-attr'] == {
        'name': 'VolumeTenantAttribute', 'alias': 'os-vol-tenant-attr', 'links': [],
        'description': 'Expose the internal project_id as an attribute of a volume.',
        'updated': '2011-11-03T00:00:00+00:00'}
    assert listed['os-volume-type-access']['updated'] == '2014-06-26T00:00:00Z'
    assert listed['os-services']['updated'] == '2012-10-28T00:00:00-00:00'
    assert listed['qos-specs']['name'] == 'Qos_specs_manage'


def test_show_by_alias(kclient):
    for path in ('/v3/extensions/os-hosts', f'/v3/{PROJECT}/extensions/os-hosts'):
        resp = kclient.simulate_get(path, headers=user(roles='reader'))
        assert (resp.status_code, resp.json) == (200, {'extension': HOSTS})
    every = kclient.simulate_get('/v3/extensions', headers=user()).json['extensions']
    for extension in every:
        shown = kclient.simulate_get(f"/v3/extensions/{extension['alias']}", headers=user())
        assert shown.json == {'extension': extension}


@pytest.mark.parametrize('alias', ['nope', 'OS-HOSTS', 'Hosts', '4'])
def test_unknown_alias_is_404(kclient, alias):
    assert fault(kclient.simulate_get(f'/v3/extensions/{alias}', headers=user())) == (
        404, 'The resource could not be found.')


def test_another_projects_url_and_no_identity_are_refused(kclient):
    other = kclient.simulate_get('/v3/someone-else/extensions', headers=user())
    assert other.status_code == 400 and 'badRequest' in other.json
    assert kclient.simulate_get('/v3/extensions').status_code == 401
