"""GET /snapshots[/detail]: fields, scope, filters by microversion, sort, pages, count."""

import datetime

import pytest

from tests.unit.api.snapshot_fixtures import add_snapshot, fault
from tests.unit.api.test_snapshots import EXTENDED
from tests.unit.api.test_snapshots_create import BASE_FIELDS, MISSING
from tests.unit.api.type_fixtures import PROJECT, admin, user
from tests.unit.api.volume_fixtures import add_volume, commits

T0 = datetime.datetime(2026, 1, 1)


def _at(minutes: int) -> datetime.datetime:
    return T0 + datetime.timedelta(minutes=minutes)


def _list(client, query='', path='/v3/snapshots', headers=None, version=None):
    return client.simulate_get(path, query_string=query, headers=headers or admin(version))


def _names(resp) -> list:
    return [s['name'] for s in resp.json['snapshots']]


@pytest.fixture
def three(db):
    """Three snapshots of the admin project, oldest first: a (available), b (error), c."""
    volume = add_volume(db, availability_zone='az1')
    other = add_volume(db, availability_zone='az2')
    return [add_snapshot(db, volume, display_name='a', created_at=_at(1), metadata={'k': 'v'}),
            add_snapshot(db, volume, display_name='b', status='error', created_at=_at(2)),
            add_snapshot(db, other, display_name='c', created_at=_at(3), use_quota=False)]


@pytest.mark.parametrize('version, detail_added', [
    ('3.0', set()), ('3.65', {'group_snapshot_id', 'user_id', 'consumes_quota'})])
def test_list_shows_the_summary_and_detail_adds_the_rest(vclient, three, version,
                                                         detail_added):
    listed = _list(vclient, version=version).json
    assert list(listed) == ['snapshots']
    assert all(set(s) == BASE_FIELDS for s in listed['snapshots'])
    detail = _list(vclient, path='/v3/snapshots/detail', version=version).json['snapshots']
    assert all(set(s) == BASE_FIELDS | EXTENDED | detail_added for s in detail)
    # Newest first, as Cinder's default sort (created_at desc).
    assert [s['name'] for s in detail] == ['c', 'b', 'a']
    assert detail[2]['metadata'] == {'k': 'v'}


def test_the_project_path_lists_too(vclient, three):
    assert _names(_list(vclient, path='/v3/admin/snapshots/detail')) == ['c', 'b', 'a']


def test_callers_see_their_project_and_admins_all_with_all_tenants(vclient, kclient, db,
                                                                   three):
    mine = add_snapshot(db, add_volume(db, project=PROJECT), display_name='mine')
    assert _names(_list(kclient, headers=user())) == ['mine']
    # all_tenants is ignored for non-admins, at every version.
    for version in ('3.0', '3.31'):
        assert _names(_list(kclient, 'all_tenants=1', headers=user(version=version))) == [
            'mine']
    assert _names(_list(vclient)) == ['c', 'b', 'a']
    assert sorted(_names(_list(vclient, 'all_tenants=1'))) == ['a', 'b', 'c', 'mine']
    resp = _list(vclient, f'all_tenants=1&project_id={PROJECT}')
    assert [s['id'] for s in resp.json['snapshots']] == [mine.id]


@pytest.mark.parametrize('query, version, names', [
    ('name=a', '3.0', ['a']),
    ('status=error', '3.0', ['b']),
    ('name=a&status=error', '3.0', []),
    ("metadata={'k': 'v'}", '3.22', ['a']),
    ("metadata={'k': 'other'}", '3.22', []),
    ('metadata=not-a-dict', '3.22', []),
    # Before 3.22 the metadata filter is dropped.
    ("metadata={'k': 'other'}", '3.21', ['c', 'b', 'a']),
    ('availability_zone=az2', '3.31', ['c']),
    ('consumes_quota=false', '3.65', ['c']),
    ('consumes_quota=true', '3.65', ['b', 'a']),
    ('name~=b', '3.34', ['b']),
    ('sort=name:asc', '3.30', ['a', 'b', 'c']),
    ('sort=name:desc', '3.30', ['c', 'b', 'a']),
    ('sort_key=created_at&sort_dir=asc', '3.0', ['a', 'b', 'c']),
    ('sort=status:asc,created_at:desc', '3.0', ['c', 'a', 'b']),
])
def test_filters_and_sorting(vclient, kclient, db, three, query, version, names):
    assert _names(_list(vclient, query, version=version)) == names


def test_volume_id_filter(vclient, three):
    resp = _list(vclient, f'volume_id={three[0].volume_id}')
    assert _names(resp) == ['b', 'a']


def test_non_admins_use_the_resource_filters_from_3_31(kclient, db):
    volume = add_volume(db, project=PROJECT, availability_zone='az1')
    add_snapshot(db, volume, display_name='a')
    headers = user(version='3.31')
    assert _names(_list(kclient, 'availability_zone=az1', headers=headers)) == ['a']
    assert fault(_list(kclient, 'progress=100%25', headers=headers)) == (
        400, 'Invalid filters progress are found in query options.')
    assert fault(_list(kclient, 'name~=a', headers=headers)) == (
        400, 'Invalid filters name~ are found in query options.')
    assert _names(_list(kclient, 'name~=a', headers=user(version='3.34'))) == ['a']
    # Before 3.31 the keys beyond status, volume_id, name and metadata are dropped silently.
    assert _names(_list(kclient, 'progress=0%25&availability_zone=none',
                        headers=user(version='3.30'))) == ['a']


def test_admins_filter_on_any_column_and_an_unknown_key_matches_nothing(vclient, three):
    assert _names(_list(vclient, 'progress=100%25')) == ['c', 'b', 'a']
    assert _names(_list(vclient, 'no_such_column=1')) == []


def test_sort_by_name_needs_3_30(vclient, three):
    assert fault(_list(vclient, 'sort=name', version='3.29')) == (
        400, 'Invalid input received: Invalid sort key: name')


@pytest.mark.parametrize('query, message', [
    ('limit=x', 'limit param must be an integer'),
    ('limit=-1', 'limit param must be positive'),
    ('offset=x', 'Invalid input received: offset must be an integer.'),
    ('sort=created_at:sideways', "Invalid input received: Unknown sort direction, must be "
                                 "'desc' or 'asc'"),
    ('sort=name&sort_key=name', "The 'sort_key' and 'sort_dir' parameters are deprecated and "
                                "cannot be used with the 'sort' parameter."),
    ('consumes_quota=maybe', "Value 'maybe' for 'use_quota' is not a boolean."),
])
def test_bad_query_parameters_are_400(vclient, three, query, message):
    assert fault(_list(vclient, query, version='3.65')) == (400, message)


def test_pages_follow_the_marker_with_next_links(vclient, three):
    first = _list(vclient, 'limit=2', path='/v3/snapshots/detail').json
    assert [s['name'] for s in first['snapshots']] == ['c', 'b']
    (link,) = first['snapshots_links']
    assert link['rel'] == 'next'
    assert link['href'] == ('http://falconframework.org/v3/admin/snapshots/detail?limit=2&'
                            f'marker={three[1].id}')
    second = _list(vclient, f'limit=2&marker={three[1].id}', path='/v3/snapshots/detail')
    assert _names(second) == ['a'] and 'snapshots_links' not in second.json
    assert _list(vclient, 'limit=2&offset=2').json == {
        'snapshots': _list(vclient, 'limit=1&sort=created_at:asc').json['snapshots']}


def test_a_full_page_without_limit_links_to_the_next(vclient, conf, three):
    conf.set_override('osapi_max_limit', 3)
    resp = _list(vclient)
    assert resp.json['snapshots_links'][0]['href'].endswith(f'marker={three[0].id}')


def test_an_unknown_marker_is_404(vclient, three):
    assert fault(_list(vclient, f'marker={MISSING}')) == (
        404, f'Snapshot {MISSING} could not be found.')


def test_with_count_from_3_45(vclient, db, three):
    committed = commits(db)
    resp = _list(vclient, 'with_count=true&limit=1&status=available', version='3.45')
    assert resp.json['count'] == 2 and len(resp.json['snapshots']) == 1
    assert len(committed) == 1  # the count and the metadata in the page's transaction
    detail = _list(vclient, 'with_count=true', path='/v3/snapshots/detail', version='3.45')
    assert detail.json['count'] == 3 and len(committed) == 2
    assert resp.json['snapshots_links'][0]['href'].endswith(
        'with_count=true&limit=1&status=available&marker=' + resp.json['snapshots'][0]['id'])
    # Cinder links to a next page whenever the limit does not pass the total count.
    last = _list(vclient, f'with_count=true&limit=2&marker={three[1].id}', version='3.45')
    assert _names(last) == ['a'] and last.json['count'] == 3 and 'snapshots_links' in last.json
    assert 'count' not in _list(vclient, 'with_count=false', version='3.45').json
    assert fault(_list(vclient, 'with_count=maybe', version='3.45')) == (
        400, "Value 'maybe' for 'with_count' is not a boolean.")


def test_with_count_before_3_45_is_a_filter(vclient, kclient, db, three):
    # Cinder leaves it among the filters: a key no non-admin may use, no column for admins.
    add_snapshot(db, add_volume(db, project=PROJECT))
    assert fault(_list(kclient, 'with_count=true', headers=user(version='3.44'))) == (
        400, 'Invalid filters with_count are found in query options.')
    assert _list(vclient, 'with_count=true', version='3.44').json == {'snapshots': []}


def test_users_without_a_role_may_not_list(kclient, db):
    assert fault(_list(kclient, headers=user(''))) == (
        403, "Policy doesn't allow volume:get_all_snapshots to be performed.")
