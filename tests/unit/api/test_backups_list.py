"""GET /backups, /backups/detail, /backups/{id} and PUT: views by microversion, filters,
paging, policy."""

import pytest

from tests.unit.api.backup_fixtures import (
    add_backup,
)
from tests.unit.api.type_fixtures import OTHER, PROJECT, admin, user
from tests.unit.api.volume_fixtures import add_volume, commits, fault

DETAIL_3_0 = {'id', 'status', 'size', 'object_count', 'availability_zone', 'container',
              'created_at', 'updated_at', 'name', 'description', 'fail_reason', 'volume_id',
              'links', 'is_incremental', 'has_dependent_backups', 'snapshot_id',
              'data_timestamp'}
MISSING = '9b1d3e2c-2d4a-4c39-8a42-7d3f9f0e1a11'


@pytest.fixture
def three(db):
    volume = add_volume(db, size=2)
    full = add_backup(db, volume, display_name='b', metadata={'k': 'v'})
    child = add_backup(db, volume, display_name='a', parent_id=full.id, status='error')
    add_backup(db, volume, display_name='c', status='creating',
               encryption_key_id='4ad4f6a3-6e9a-4a83-8f1e-3e0ab0cd0f00')
    from cinderlike.db import backups as db_backups
    db_backups.recount_dependents(db, backup_id=full.id)
    return full, child


def _get(client, path, version=None, headers=None):
    return client.simulate_get(path, headers=headers or admin(version))


@pytest.mark.parametrize('version, extra', [
    ('3.0', set()),
    ('3.18', {'os-backup-project-attr:project_id'}),
    ('3.43', {'os-backup-project-attr:project_id', 'metadata'}),
    ('3.56', {'os-backup-project-attr:project_id', 'metadata', 'user_id'}),
])
def test_show_fields_by_microversion(bclient, three, version, extra):
    full, child = three
    shown = _get(bclient, f'/v3/backups/{full.id}', version).json['backup']
    assert set(shown) == DETAIL_3_0 | extra
    assert (shown['is_incremental'], shown['has_dependent_backups'], shown['size'],
            shown['status']) == (False, True, 2, 'available')
    if 'metadata' in extra:
        assert shown['metadata'] == {'k': 'v'}
    child_view = _get(bclient, f'/v3/backups/{child.id}', version).json['backup']
    assert (child_view['is_incremental'], child_view['has_dependent_backups']) == (True, False)


def test_encryption_key_id_from_3_64(bclient, db, three):
    rows = _get(bclient, '/v3/backups/detail', '3.64').json['backups']
    keyed = [b for b in rows if 'encryption_key_id' in b]
    assert [b['name'] for b in keyed] == ['c']
    assert all('encryption_key_id' not in b
               for b in _get(bclient, '/v3/backups/detail', '3.63').json['backups'])


def test_list_is_the_summary_and_detail_the_rest(bclient, three):
    summary = _get(bclient, '/v3/backups').json['backups']
    assert [set(b) for b in summary] == [{'id', 'name', 'links'}] * 3
    detail = _get(bclient, '/v3/backups/detail').json['backups']
    assert all(set(b) == DETAIL_3_0 for b in detail)


@pytest.mark.parametrize('query, version, names', [
    ('sort=name:asc', '3.37', ['a', 'b', 'c']),
    ('name=b', '3.0', ['b']),
    ('status=error', '3.0', ['a']),
    ('name~=b', '3.34', ['b']),
])
def test_filters_and_sort(bclient, three, query, version, names):
    resp = _get(bclient, f'/v3/backups?{query}', version)
    assert [b['name'] for b in resp.json['backups']] == names


def test_paging_with_count_and_links(bclient, db, three):
    committed = commits(db)
    resp = _get(bclient, '/v3/backups?limit=2&with_count=true&sort=name:asc', '3.45')
    assert resp.json['count'] == 3 and len(resp.json['backups']) == 2
    assert len(committed) == 1  # the count in the page's transaction
    detail = _get(bclient, '/v3/backups/detail?with_count=true', '3.45')
    assert detail.json['count'] == 3 and len(committed) == 2  # and the detail's metadata
    assert 'marker=' in resp.json['backups_links'][0]['href']
    marker = resp.json['backups'][-1]['id']
    rest = _get(bclient, f'/v3/backups?marker={marker}&sort=name:asc', '3.45').json
    assert [b['name'] for b in rest['backups']] == ['c']
    resp = _get(bclient, f'/v3/backups?marker={MISSING}')
    assert fault(resp) == (404, f'Backup {MISSING} could not be found.')


def test_bad_all_tenants_and_non_admin_filters(bclient, bkclient, db):
    resp = _get(bclient, '/v3/backups?all_tenants=maybe')
    assert fault(resp) == (400, "all_tenants must be a boolean, got 'maybe'.")
    resp = _get(bkclient, '/v3/backups?host=x', '3.31', headers=user(version='3.31'))
    assert fault(resp) == (400, 'Invalid filters host are found in query options.')


def test_projects_see_their_own(bkclient, db):
    mine = add_backup(db, add_volume(db, project=PROJECT), display_name='mine')
    theirs = add_backup(db, add_volume(db, project=OTHER), display_name='theirs')
    names = [b['name'] for b in bkclient.simulate_get(
        '/v3/backups', headers=user()).json['backups']]
    assert names == ['mine']
    resp = bkclient.simulate_get(f'/v3/backups/{theirs.id}', headers=user())
    assert fault(resp) == (404, f'Backup {theirs.id} could not be found.')
    shown = bkclient.simulate_get(f'/v3/backups/{mine.id}',
                                  headers=user(version='3.56')).json['backup']
    # The project and user attributes are for admins only.
    assert 'user_id' not in shown and 'os-backup-project-attr:project_id' not in shown


def test_update_from_3_9_with_metadata_from_3_43(bclient, db, three):
    full, _child = three
    path = f'/v3/backups/{full.id}'
    resp = bclient.simulate_put(path, json={'backup': {'name': 'x'}}, headers=admin('3.8'))
    assert resp.status_code == 404
    resp = bclient.simulate_put(path, json={'backup': {'name': ' new ', 'description': 'd'}},
                                headers=admin('3.9'))
    assert resp.status_code == 200 and resp.json['backup']['name'] == 'new'
    resp = bclient.simulate_put(path, json={'backup': {'metadata': {'a': 'b'}}},
                                headers=admin('3.9'))
    assert fault(resp)[0] == 400
    resp = bclient.simulate_put(path, json={'backup': {'metadata': {'a': 'b'}}},
                                headers=admin('3.43'))
    assert resp.status_code == 200
    shown = _get(bclient, path, '3.43').json['backup']
    assert (shown['name'], shown['description'], shown['metadata']) == ('new', 'd',
                                                                          {'a': 'b'})
    resp = bclient.simulate_put(f'/v3/backups/{MISSING}', json={'backup': {'name': 'x'}},
                                headers=admin('3.9'))
    assert fault(resp) == (404, f'Backup {MISSING} could not be found.')
