"""GET /scheduler-stats/get_pools: views, filters by microversion, admin only."""

import pytest

from cinderlike.db import volume_types as db_types
from tests.unit.api.type_fixtures import admin, user

POOLS = '/v3/scheduler-stats/get_pools'
CAPABILITIES = {'pool_name': 'p1', 'total_capacity_gb': 100, 'free_capacity_gb': 60,
                'volume_backend_name': 'lvm', 'storage_protocol': ['iSCSI', 'iscsi']}


@pytest.fixture
def reported(answering):
    answering.scheduler.answer = [
        {'name': 'node1@lvm#p1', 'capabilities': dict(CAPABILITIES)},
        {'name': 'node2@nfs#p2', 'capabilities': {'pool_name': 'p2',
                                                  'storage_protocol': 'nfs'}}]
    return answering.scheduler


def _get(client, query=None, version=None):
    return client.simulate_get(POOLS, query_string=query, headers=admin(version))


def test_summary_lists_names_only(pclient, reported):
    resp = _get(pclient)
    assert resp.status_code == 200
    assert resp.json == {'pools': [{'name': 'node1@lvm#p1'}, {'name': 'node2@nfs#p2'}]}
    assert reported.calls == [('get_pools', {'filters': {}})]


@pytest.mark.parametrize('value', ['true', 'True', '1', 'yes', 'on'])
def test_detail_shows_capabilities_with_one_storage_protocol(pclient, reported, value):
    resp = _get(pclient, f'detail={value}')
    assert resp.status_code == 200
    first, second = resp.json['pools']
    assert first == {'name': 'node1@lvm#p1',
                     'capabilities': {**CAPABILITIES, 'storage_protocol': 'iSCSI'}}
    assert second['capabilities']['storage_protocol'] == 'nfs'
    assert reported.calls == [('get_pools', {'filters': {}})]


def test_detail_false_is_the_summary(pclient, reported):
    assert _get(pclient, 'detail=false').json['pools'][0] == {'name': 'node1@lvm#p1'}


def test_detail_that_is_not_a_boolean_is_refused_before_the_call(pclient, reported):
    resp = _get(pclient, 'detail=abc')
    assert resp.status_code == 400
    assert resp.json == {'badRequest': {
        'code': 400, 'message': "Value 'abc' for 'detail' is not a boolean."}}
    assert reported.calls == []


def test_no_pools_is_an_empty_list(pclient, answering):
    assert _get(pclient, 'detail=true').json == {'pools': []}


def test_filters_are_ignored_before_3_28(pclient, reported):
    _get(pclient, 'name=node1@lvm#p1&storage_protocol=iSCSI&volume_type=x', version='3.27')
    assert reported.calls == [('get_pools', {'filters': {}})]


def test_any_capability_filters_from_3_28(pclient, reported):
    _get(pclient, 'storage_protocol=iSCSI&name=node1@lvm#p1&detail=true', version='3.28')
    assert reported.calls == [('get_pools', {'filters': {
        'storage_protocol': 'iSCSI', 'name': 'node1@lvm#p1'}})]


@pytest.mark.parametrize('version', ['3.31', '3.34', '3.35', '3.71'])
def test_only_name_and_volume_type_from_3_31_even_for_admins(pclient, reported, version):
    resp = _get(pclient, 'storage_protocol=iSCSI&name=x', version=version)
    assert resp.status_code == 400
    assert resp.json['badRequest']['message'] == (
        'Invalid filters storage_protocol are found in query options.')
    like = _get(pclient, 'name~=node', version=version)
    assert like.status_code == 400
    assert reported.calls == []


def test_volume_type_is_dropped_before_3_35(pclient, db, reported):
    db_types.create(db, name='gold')
    _get(pclient, 'volume_type=gold&name=node1@lvm#p1', version='3.34')
    assert reported.calls == [('get_pools', {'filters': {'name': 'node1@lvm#p1'}})]


def test_volume_type_by_name_or_id_from_3_35(pclient, db, reported):
    gold = db_types.create(db, name='gold')
    assert _get(pclient, 'volume_type=gold', version='3.35').status_code == 200
    assert _get(pclient, f'volume_type={gold.id}', version='3.35').status_code == 200
    assert reported.calls == [('get_pools', {'filters': {'volume_type': 'gold'}}),
                              ('get_pools', {'filters': {'volume_type': gold.id}})]


def test_unknown_volume_type_is_404_and_nothing_is_asked(pclient, reported):
    resp = _get(pclient, 'volume_type=nope', version='3.35')
    assert resp.status_code == 404
    assert resp.json == {'itemNotFound': {
        'code': 404, 'message': 'Volume type with name nope could not be found.'}}
    assert reported.calls == []


def test_non_ascii_filter_key_is_refused(pclient, reported):
    resp = _get(pclient, 'n%C3%A4me=x', version='3.31')
    assert resp.status_code == 400
    assert resp.json['badRequest']['message'] == (
        'Filter keys can only contain ASCII characters.')


def test_with_project_id_in_the_url(pclient, reported):
    resp = pclient.simulate_get('/v3/admin/scheduler-stats/get_pools', headers=admin())
    assert resp.status_code == 200


@pytest.mark.parametrize('roles', ['reader,member', 'member', 'reader'])
def test_only_admins(pkclient, reported, roles):
    resp = pkclient.simulate_get(POOLS, headers=user(roles=roles))
    assert resp.status_code == 403
    assert resp.json == {'forbidden': {'code': 403, 'message': (
        "Policy doesn't allow scheduler_extension:scheduler_stats:get_pools "
        "to be performed.")}}
    assert reported.calls == []


def test_project_admin_may(pkclient, reported):
    assert pkclient.simulate_get(POOLS, headers=user(roles='admin')).status_code == 200
