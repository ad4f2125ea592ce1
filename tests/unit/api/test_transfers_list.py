"""Transfer lists as Cinder's: own project (all_tenants for admins), exact-match filters,
a fixed order before 3.59, then marker/limit/offset/sort; refused parameters are 400/404."""

import pytest

from tests.unit.api.transfer_fixtures import DONOR, TAKER, create, member, owned_volume

ADMIN = member('admin', 'u-admin', roles='admin,member,reader')


@pytest.fixture
def offered(kclient, seeded, conf):
    """Three transfers of DONOR's volumes (oldest first) and one of TAKER's."""
    ids = []
    for name in ('a', 'b', 'c'):
        volume = owned_volume(seeded, conf)
        ids.append(create(kclient, volume.id, name=name,
                          headers=member()).json['transfer']['id'])
    theirs = owned_volume(seeded, conf, project=TAKER, user_id='u-taker')
    ids.append(create(kclient, theirs.id, name='d',
                      headers=member(TAKER, 'u-taker')).json['transfer']['id'])
    return ids


def _ids(kclient, path='volume-transfers', query='', headers=None):
    resp = kclient.simulate_get(f'/v3/{path}', query_string=query,
                                headers=headers or member())
    assert resp.status_code == 200, resp.json
    return [t['id'] for t in resp.json['transfers']]


@pytest.mark.parametrize('path', ['os-volume-transfer', 'volume-transfers'])
def test_a_project_lists_its_own_oldest_first(kclient, offered, path):
    assert _ids(kclient, path) == offered[:3]
    assert _ids(kclient, f'{path}/detail') == offered[:3]
    assert _ids(kclient, path, headers=member(TAKER, 'u-taker')) == offered[3:]


def test_summary_and_detail_fields(kclient, offered):
    summary = kclient.simulate_get('/v3/volume-transfers', headers=member()).json
    assert set(summary) == {'transfers'}
    assert set(summary['transfers'][0]) == {'id', 'volume_id', 'name', 'links'}
    detail = kclient.simulate_get('/v3/volume-transfers/detail',
                                  headers=member(version='3.57')).json['transfers'][0]
    assert set(detail) == {'id', 'created_at', 'name', 'volume_id', 'links', 'no_snapshots',
                           'destination_project_id', 'source_project_id', 'accepted'}
    assert (detail['source_project_id'], detail['accepted']) == (DONOR, False)


def test_all_tenants_is_for_admins_and_may_name_a_project(kclient, offered):
    assert _ids(kclient, query='all_tenants=1') == offered[:3]
    assert _ids(kclient, query='all_tenants=1', headers=ADMIN) == offered
    assert _ids(kclient, query=f'all_tenants=1&project_id={TAKER}', headers=ADMIN) == offered[3:]
    assert _ids(kclient, query=f'project_id={TAKER}') == offered[:3]


@pytest.mark.parametrize('query, expected', [
    ('name=b', [1]), ('name=nope', []), ('no_snapshots=false', [0, 1, 2]),
    ('bogus=1', []),
])
def test_filters_match_columns_exactly(kclient, offered, query, expected):
    assert _ids(kclient, query=query) == [offered[i] for i in expected]


@pytest.mark.parametrize('path, version', [('os-volume-transfer', '3.71'),
                                           ('volume-transfers', '3.58')])
def test_before_pagination_paging_parameters_match_nothing(kclient, offered, path, version):
    assert _ids(kclient, path, query='limit=2', headers=member(version=version)) == []


def test_pagination_and_sort_from_3_59(kclient, offered):
    v359 = member(version='3.59')
    assert _ids(kclient, headers=v359) == offered[2::-1]
    assert _ids(kclient, query='sort=created_at:asc', headers=v359) == offered[:3]
    assert _ids(kclient, query='sort=display_name:desc&limit=2', headers=v359) == offered[2:0:-1]
    assert _ids(kclient, query=f'sort=created_at:asc&marker={offered[0]}',
                headers=v359) == offered[1:3]
    # NOTE(cinder): Cinder applies the offset in the database and again to the page.
    assert _ids(kclient, query='sort=created_at:asc&offset=1', headers=v359) == offered[2:3]


def test_next_link_when_the_page_is_full(kclient, offered):
    resp = kclient.simulate_get('/v3/volume-transfers',
                                query_string='limit=2&sort=display_name:asc',
                                headers=member(version='3.59'))
    assert resp.json['transfers_links'] == [{
        'rel': 'next', 'href': f'http://falconframework.org/v3/{DONOR}/os-volume-transfer?'
                               f'limit=2&sort=display_name%3Aasc&marker={offered[1]}'}]
    last = kclient.simulate_get('/v3/volume-transfers', query_string='limit=5',
                                headers=member(version='3.59'))
    assert 'transfers_links' not in last.json


@pytest.mark.parametrize('query, code, message', [
    ('limit=x', 400, 'limit param must be an integer'),
    ('limit=-1', 400, 'limit param must be positive'),
    ('offset=x', 400, 'Invalid input received: offset must be an integer.'),
    ('sort=bogus', 400, 'Invalid input received: Invalid sort key: bogus'),
    ('sort=name:sideways', 400,
     "Invalid input received: Unknown sort direction, must be 'desc' or 'asc'"),
    ('marker=00000000-0000-0000-0000-000000000009', 404,
     'Transfer 00000000-0000-0000-0000-000000000009 could not be found.'),
])
def test_bad_paging_is_refused(kclient, offered, query, code, message):
    resp = kclient.simulate_get('/v3/volume-transfers', query_string=query,
                                headers=member(version='3.59'))
    assert resp.status_code == code
    assert next(iter(resp.json.values()))['message'] == message


def test_a_bad_limit_is_refused_before_pagination_too(kclient, offered):
    resp = kclient.simulate_get('/v3/os-volume-transfer', query_string='limit=x',
                                headers=member())
    assert resp.status_code == 400
    assert resp.json['badRequest']['message'] == 'limit param must be an integer'


def test_another_projects_transfer_is_not_shown(kclient, offered):
    resp = kclient.simulate_get(f'/v3/volume-transfers/{offered[3]}', headers=member())
    assert resp.json == {'itemNotFound': {
        'message': f'Transfer {offered[3]} could not be found.', 'code': 404}}
    assert kclient.simulate_get(f'/v3/volume-transfers/{offered[3]}',
                                headers=ADMIN).status_code == 200
