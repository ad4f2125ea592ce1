"""/types: create, list with filters, show (private types), update and delete, as Cinder."""

import pytest
import sqlalchemy as sa

from cinderlike.db import default_types as db_default_types
from cinderlike.db import type_access as db_type_access
from cinderlike.db import volume_types as db_types
from cinderlike.db.models import Quota, VolumeType
from tests.unit.api.type_fixtures import (
    ADMIN,
    OTHER,
    PROJECT,
    add_volume,
    seed_default,
    user,
)

TYPES = '/v3/types'


@pytest.fixture
def default(db):
    return seed_default(db)


def _create(client, body, headers=ADMIN):
    return client.simulate_post(TYPES, headers=headers, json=body)


def _names(db):
    return sorted(r.name for r in db_types.get_all(db, project_id=None, is_public=None))


def test_create_answers_the_type_with_all_specs(client, db, default):
    resp = _create(client, {'volume_type': {
        'name': 'gold', 'description': 'fast', 'extra_specs': {'volume_backend_name': 'lvm'},
        'os-volume-type-access:is_public': 'false'}})
    assert resp.status_code == 200
    shown = resp.json['volume_type']
    assert shown == {'id': shown['id'], 'name': 'gold', 'is_public': False, 'description': 'fast',
                     'extra_specs': {'volume_backend_name': 'lvm'},
                     'os-volume-type-access:is_public': False}
    assert db_types.get(db, type_id=shown['id']).extra_specs == {'volume_backend_name': 'lvm'}


def test_create_duplicate_name_is_409_and_writes_nothing(client, db, default):
    resp = _create(client, {'volume_type': {'name': '__DEFAULT__'}})
    assert resp.status_code == 409
    assert resp.json == {'conflictingRequest': {
        'code': 409, 'message': 'Volume Type __DEFAULT__ already exists.'}}
    assert _names(db) == ['__DEFAULT__']


@pytest.mark.parametrize('wanted, message', [
    ({}, "Invalid input for field/attribute volume_type. Value: {}. 'name' is a required "
         "property"),
    ({'name': '   '}, "An invalid 'name' value was provided. The 'name' can not be empty."),
    ({'name': 'x' * 256}, None),
    ({'name': 'a', 'extra_specs': {'bad*key': 'v'}}, None),
    ({'name': 'a', 'extra_specs': {'k': 'v' * 256}}, None),
    ({'name': 'a', 'os-volume-type-access:is_public': 'maybe'}, None),
    ({'name': 'a', 'description': 'line\nbreak'}, None),
    ({'name': 'a', 'unknown': 1}, None),
])
def test_create_bad_input_is_400_and_writes_nothing(client, db, default, wanted, message):
    resp = _create(client, {'volume_type': wanted})
    assert resp.status_code == 400
    assert resp.json['badRequest']['code'] == 400
    if message:
        assert resp.json['badRequest']['message'] == message
    assert _names(db) == ['__DEFAULT__']


def test_create_without_body_key_is_400(client, db):
    resp = _create(client, {'name': 'gold'})
    assert resp.status_code == 400
    assert "'volume_type' is a required property" in resp.json['badRequest']['message']


def test_non_admin_cannot_create(keystone_client, db, default):
    resp = _create(keystone_client, {'volume_type': {'name': 'gold'}}, headers=user())
    assert resp.status_code == 403
    assert resp.json['forbidden']['message'] == (
        "Policy doesn't allow volume_extension:type_create to be performed.")
    assert _names(db) == ['__DEFAULT__']


def test_reader_sees_public_and_shared_types_only(keystone_client, db, default):
    public = db_types.create(db, name='public', extra_specs={'multiattach': '<is> True',
                                                             'volume_backend_name': 'lvm'})
    shared = db_types.create(db, name='shared', is_public=False)
    db_types.create(db, name='hidden', is_public=False)
    db_type_access.add(db, type_id=shared.id, project_id=PROJECT)
    resp = keystone_client.simulate_get(TYPES, headers=user('reader'))
    assert resp.status_code == 200
    listed = {t['name']: t for t in resp.json['volume_types']}
    assert sorted(listed) == ['__DEFAULT__', 'public', 'shared']
    # Readers see only user-visible specs, no QoS id and no access flag (member rule).
    assert listed['public'] == {'id': public.id, 'name': 'public', 'is_public': True,
                                'description': None, 'extra_specs': {'multiattach': '<is> True'}}
    hidden = db_types.get_by_name(db, name='hidden')
    assert keystone_client.simulate_get(f'{TYPES}/{hidden.id}',
                                        headers=user('reader')).status_code == 404
    shown = keystone_client.simulate_get(f'{TYPES}/{shared.id}', headers=user())
    assert shown.json['volume_type']['os-volume-type-access:is_public'] is False


def test_admin_lists_with_is_public_filter(client, db, default):
    db_types.create(db, name='private', is_public=False)
    listed = lambda query: sorted(  # noqa: E731
        t['name'] for t in client.simulate_get(TYPES, query_string=query,
                                               headers=ADMIN).json['volume_types'])
    assert listed('') == ['__DEFAULT__']
    assert listed('is_public=false') == ['private']
    assert listed('is_public=None') == ['__DEFAULT__', 'private']
    resp = client.simulate_get(TYPES, query_string='is_public=maybe', headers=ADMIN)
    assert resp.status_code == 400
    assert resp.json['badRequest']['message'] == 'Invalid is_public filter [maybe]'


def test_admin_view_has_every_spec_and_qos_id(client, db, default):
    db_types.create(db, name='gold', extra_specs={'volume_backend_name': 'lvm'})
    listed = client.simulate_get(TYPES, headers=ADMIN).json['volume_types']
    gold = next(t for t in listed if t['name'] == 'gold')
    assert gold['extra_specs'] == {'volume_backend_name': 'lvm'}
    assert gold['qos_specs_id'] is None
    assert gold['os-volume-type-access:is_public'] is True


def test_list_is_newest_first(client, db, default):
    db_types.create(db, name='later')
    names = [t['name'] for t in client.simulate_get(TYPES, headers=ADMIN).json['volume_types']]
    assert names == ['later', '__DEFAULT__']


def test_extra_specs_filter(client, keystone_client, db, default):
    db_types.create(db, name='az', extra_specs={'RESKEY:availability_zones': 'az1, az2'})
    db_types.create(db, name='lvm', extra_specs={'volume_backend_name': 'lvm'})
    query = lambda q, headers=ADMIN, c=client: sorted(  # noqa: E731
        t['name'] for t in c.simulate_get(TYPES, query_string=q,
                                          headers=headers).json['volume_types'])
    assert query("extra_specs={'volume_backend_name': 'lvm'}") == ['lvm']
    assert query("extra_specs={'RESKEY:availability_zones': 'az2'}") == ['az']
    assert query("extra_specs={'volume_backend_name': 'nfs'}") == []
    assert query("extra_specs={'volume_backend_name': 'lvm'}", user(version='3.52'),
                 keystone_client) == ['lvm']


def test_non_admin_filters_checked_from_3_52(keystone_client, db, default):
    old = keystone_client.simulate_get(TYPES, query_string='name=x', headers=user())
    assert old.status_code == 200 and len(old.json['volume_types']) == 1
    new = keystone_client.simulate_get(TYPES, query_string='name=x',
                                       headers=user(version='3.52'))
    assert new.status_code == 400
    assert new.json['badRequest']['message'] == 'Invalid filters name are found in query options.'


def test_show_unknown_and_by_name_is_404(client, db, default):
    for ident in ('9b3a0a4c-1111-4e2e-9a5f-000000000000', '__DEFAULT__'):
        resp = client.simulate_get(f'{TYPES}/{ident}', headers=ADMIN)
        assert resp.status_code == 404
        assert resp.json == {'itemNotFound': {
            'code': 404, 'message': f'Volume type {ident} could not be found.'}}


def test_show_default_follows_project_default(client, conf, db, default):
    assert client.simulate_get(f'{TYPES}/default', headers=ADMIN).json[
        'volume_type']['name'] == '__DEFAULT__'
    gold = db_types.create(db, name='gold')
    db_default_types.set_default(db, project_id='admin', type_id=gold.id)
    assert client.simulate_get(f'{TYPES}/default', headers=ADMIN).json[
        'volume_type']['id'] == gold.id
    conf.set_override('default_volume_type', 'missing')
    db_default_types.unset(db, project_id='admin')
    assert client.simulate_get(f'{TYPES}/default', headers=ADMIN).status_code == 500


def _put(client, type_id, wanted):
    return client.simulate_put(f'{TYPES}/{type_id}', headers=ADMIN, json={'volume_type': wanted})


def test_update_fields_and_rename_moves_type_quotas(client, db, default):
    gold = db_types.create(db, name='gold')
    with db.writer() as session:
        session.add(Quota(project_id=PROJECT, resource='volumes_gold', hard_limit=3))
    resp = _put(client, gold.id, {'name': 'platinum', 'description': 'd', 'is_public': 'no'})
    assert resp.status_code == 200
    assert resp.json['volume_type'] == {'id': gold.id, 'name': 'platinum', 'is_public': False,
                                        'description': 'd', 'extra_specs': {}}
    with db.reader() as session:
        assert session.scalar(sa.select(Quota.resource)) == 'volumes_platinum'


@pytest.mark.parametrize('wanted, code, message', [
    ({}, 400, 'Specify volume type name, description, is_public or a combination thereof.'),
    ({'name': '  '}, 400, 'Volume type name can not be empty.'),
    ({'name': '__DEFAULT__'}, 409, 'Volume Type __DEFAULT__ already exists.'),
    ({'is_public': 'perhaps'}, 400, None),
])
def test_update_refusals_change_nothing(client, db, default, wanted, code, message):
    gold = db_types.create(db, name='gold')
    resp = _put(client, gold.id, wanted)
    assert resp.status_code == code
    if message:
        assert list(resp.json.values())[0]['message'] == message
    assert db_types.get(db, type_id=gold.id) == gold


def test_update_unknown_is_404(client, db):
    resp = _put(client, 'nope', {'name': 'x'})
    assert resp.status_code == 404
    assert resp.json['itemNotFound']['message'] == 'Volume type nope could not be found.'


def test_delete(client, db, default):
    gold = db_types.create(db, name='gold', extra_specs={'k': 'v'})
    resp = client.simulate_delete(f'{TYPES}/{gold.id}', headers=ADMIN)
    assert resp.status_code == 202
    assert _names(db) == ['__DEFAULT__']
    assert client.simulate_delete(f'{TYPES}/{gold.id}', headers=ADMIN).status_code == 404


def test_delete_type_in_use_is_400(client, db, default):
    gold = db_types.create(db, name='gold')
    add_volume(db, gold.id)
    resp = client.simulate_delete(f'{TYPES}/{gold.id}', headers=ADMIN)
    assert resp.json == {'badRequest': {'code': 400,
                                        'message': 'Target volume type is still in use.'}}
    assert 'gold' in _names(db)


def test_delete_defaults_is_400(client, db, default):
    gold = db_types.create(db, name='gold')
    db_default_types.set_default(db, project_id=OTHER, type_id=gold.id)
    for type_id in (default.id, gold.id):
        resp = client.simulate_delete(f'{TYPES}/{type_id}', headers=ADMIN)
        assert resp.json == {'badRequest': {'code': 400, 'message': (
            f'The volume type {type_id} is a default volume type and cannot be deleted.')}}
    assert _names(db) == ['__DEFAULT__', 'gold']


def test_delete_with_default_misconfigured_is_500(client, conf, db, default):
    conf.set_override('default_volume_type', 'missing')
    resp = client.simulate_delete(f'{TYPES}/{default.id}', headers=ADMIN)
    assert resp.json == {'computeFault': {'code': 500, 'message': (
        'The request cannot be fulfilled as the default volume type missing cannot be found.')}}
    with db.reader() as session:
        assert session.scalar(sa.select(VolumeType.deleted)) is False


def test_non_admin_cannot_update_or_delete(keystone_client, db, default):
    resp = keystone_client.simulate_delete(f'{TYPES}/{default.id}', headers=user())
    assert resp.status_code == 403
    resp = keystone_client.simulate_put(f'{TYPES}/{default.id}', headers=user(),
                                        json={'volume_type': {'name': 'x'}})
    assert resp.status_code == 403
    assert _names(db) == ['__DEFAULT__']


def test_pagination_and_sort(client, db, default):
    db_types.create(db, name='b')
    db_types.create(db, name='a')
    first = client.simulate_get(TYPES, query_string='limit=2&sort=name:asc', headers=ADMIN)
    assert [t['name'] for t in first.json['volume_types']] == ['__DEFAULT__', 'a']
    (link,) = first.json['volume_type_links']
    assert link['rel'] == 'next'
    assert '/v3/admin/types?' in link['href'] and 'marker=' in link['href']
    marker = first.json['volume_types'][-1]['id']
    rest = client.simulate_get(TYPES, query_string=f'limit=2&sort=name:asc&marker={marker}',
                               headers=ADMIN)
    assert [t['name'] for t in rest.json['volume_types']] == ['b']
    assert 'volume_type_links' not in rest.json
    missing = client.simulate_get(TYPES, query_string='marker=nope', headers=ADMIN)
    # Cinder's types listing finds no marker row and starts from the first type.
    assert missing.status_code == 200
    assert len(missing.json['volume_types']) == 3
    bad = client.simulate_get(TYPES, query_string='limit=-1', headers=ADMIN)
    assert bad.json['badRequest']['message'] == 'limit param must be positive'
