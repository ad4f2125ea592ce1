"""os-quota-sets: show (usage too), update with Cinder's checks, defaults, delete."""

import pytest

from cinderlike import quota
from cinderlike.db import quotas as db_quotas
from cinderlike.db.models import VolumeType
from tests.unit.api.conftest import ADMIN

URL = '/v3/os-quota-sets/p1'
DEFAULTS = {'volumes': 10, 'per_volume_gigabytes': -1, 'snapshots': 10, 'gigabytes': 1000,
            'backups': 10, 'backup_gigabytes': 1000, 'groups': 10}


def identity(roles, project='p1'):
    return {'X-User-Id': 'u1', 'X-Project-Id': project, 'X-Roles': roles}


def put(client, body, url=URL, headers=ADMIN):
    return client.simulate_put(url, headers=headers, json=body)


def own_limits(db, project='p1'):
    return db_quotas.get_project_limits(db, project_id=project)


def test_show_lists_every_resource_with_its_default(client):
    resp = client.simulate_get(URL, headers=ADMIN)
    assert resp.status_code == 200
    assert resp.json == {'quota_set': dict(DEFAULTS, id='p1')}


def test_show_has_per_type_resources(client, db):
    with db.writer() as s:
        s.add(VolumeType(id='t1', name='lvm', is_public=True, deleted=False))
    shown = client.simulate_get(URL, headers=ADMIN).json['quota_set']
    assert (shown['volumes_lvm'], shown['gigabytes_lvm'], shown['snapshots_lvm']) == (-1, -1, -1)


def test_show_with_usage(client, db, conf):
    quota.reserve(db, None, conf=conf, project_id='p1', deltas={'volumes': 2, 'gigabytes': 3})
    ids = quota.reserve(db, None, conf=conf, project_id='p1', deltas={'volumes': 1})
    quota.commit(db, None, ids)
    resp = client.simulate_get(URL, headers=ADMIN, params={'usage': 'True'})
    shown = resp.json['quota_set']
    assert shown['id'] == 'p1'
    assert shown['volumes'] == {'limit': 10, 'in_use': 1, 'reserved': 2}
    assert shown['gigabytes'] == {'limit': 1000, 'in_use': 0, 'reserved': 3}
    assert shown['groups'] == {'limit': 10, 'in_use': 0, 'reserved': 0}


def test_show_usage_must_be_a_boolean(client):
    resp = client.simulate_get(URL, headers=ADMIN, params={'usage': 'maybe'})
    assert resp.status_code == 400
    assert resp.json == {'badRequest': {
        'code': 400, 'message': "Value 'maybe' for 'usage' is not a boolean."}}


def test_reader_sees_own_project_only(keystone_client):
    assert keystone_client.simulate_get(URL, headers=identity('reader')).status_code == 200
    resp = keystone_client.simulate_get('/v3/os-quota-sets/p2', headers=identity('reader'))
    assert resp.status_code == 403
    assert resp.json['forbidden']['message'] == (
        "Policy doesn't allow volume_extension:quotas:show to be performed.")


def test_defaults(client, db):
    db_quotas.set_class_limits(db, class_name='default', limits={'volumes': 7})
    db_quotas.set_project_limits(db, project_id='p1', limits={'volumes': 3})
    resp = client.simulate_get(URL + '/defaults', headers=ADMIN)
    assert resp.json == {'quota_set': dict(DEFAULTS, volumes=7, id='p1')}


def test_update_sets_limits_and_answers_without_id(client, db):
    resp = put(client, {'quota_set': {'volumes': 5, 'gigabytes': 20, 'id': 'x',
                                      'tenant_id': 'y'}})
    assert resp.status_code == 200
    assert resp.json == {'quota_set': dict(DEFAULTS, volumes=5, gigabytes=20)}
    assert own_limits(db) == {'volumes': 5, 'gigabytes': 20}
    put(client, {'quota_set': {'volumes': -1}})
    assert own_limits(db) == {'volumes': -1, 'gigabytes': 20}


@pytest.mark.parametrize('body, message', [
    ({'quota_set': {'volumes': 'abc'}}, 'volumes must be an integer'),
    ({'quota_set': {'volumes': 1.5}}, 'volumes must be an integer'),
    ({'quota_set': {'volumes': True}}, 'volumes must be an integer'),
    ({'quota_set': {'volumes': None}}, 'volumes must be an integer'),
    ({'quota_set': {'volumes': -2}}, 'volumes must be >= -1'),
    ({'quota_set': {'volumes': 2 ** 31}}, 'volumes must be <= 2147483647'),
    ({'quota_set': {'foo': 1, 'bar': 2, 'volumes': 1}},
     'Invalid input received: Bad key(s) in quota set: foo, bar'),
    ({'quota_set': {'foo': 1, 'volumes': 'x'}}, 'volumes must be an integer'),
    ({'quota_set': {'volumes_nosuchtype': 1}},
     'Invalid input received: Bad key(s) in quota set: volumes_nosuchtype'),
    ({'quota_set': {}},
     'Invalid input for field/attribute quota_set. Value: {}. {} should be non-empty'),
    ({'quota_set': 5}, 'Invalid input for field/attribute quota_set. Value: 5. 5 is not of '
                       "type 'object'"),
    ({}, "'quota_set' is a required property"),
    ({'quota_set': {'volumes': 1}, 'extra': 1},
     "Additional properties are not allowed ('extra' was unexpected)"),
])
def test_update_refuses_bad_bodies_and_writes_nothing(client, db, body, message):
    resp = put(client, body)
    assert resp.status_code == 400
    assert resp.json == {'badRequest': {'code': 400, 'message': message}}
    assert own_limits(db) == {}


def test_update_refuses_a_malformed_body(client, db):
    resp = client.simulate_put(URL, headers=ADMIN, body='{"quota_set": ')
    assert (resp.status_code, resp.json['badRequest']['message']) == (
        400, 'Malformed request body')
    assert own_limits(db) == {}


def test_update_below_usage_is_refused_when_the_project_has_its_own_limit(client, db, conf):
    db_quotas.set_project_limits(db, project_id='p1', limits={'volumes': 10})
    quota.commit(db, None, quota.reserve(db, None, conf=conf, project_id='p1',
                                         deltas={'volumes': 3}))
    quota.reserve(db, None, conf=conf, project_id='p1', deltas={'volumes': 1})
    resp = put(client, {'quota_set': {'gigabytes': 50, 'volumes': 3}})
    assert resp.status_code == 400
    assert resp.json['badRequest']['message'] == (
        'Quota volumes limit must be equal or greater than existing resources. '
        'Current usage is 4 and the requested limit is 3.')
    assert own_limits(db) == {'volumes': 10}
    assert put(client, {'quota_set': {'volumes': 4}}).status_code == 200
    assert put(client, {'quota_set': {'volumes': -1}}).status_code == 200


def test_update_below_usage_passes_on_default_limits_as_in_cinder(client, db, conf):
    quota.commit(db, None, quota.reserve(db, None, conf=conf, project_id='p1',
                                         deltas={'volumes': 3}))
    assert put(client, {'quota_set': {'volumes': 1}}).status_code == 200
    assert own_limits(db) == {'volumes': 1}


def test_update_name_over_255_is_refused(client, db):
    resp = put(client, {'quota_set': {'volumes': 1}}, url='/v3/os-quota-sets/' + 'p' * 256)
    assert resp.status_code == 400
    assert resp.json['badRequest']['message'] == (
        'Invalid input received: quota_set_name has 256 characters, more than 255.')


@pytest.mark.parametrize('roles', ['reader', 'member'])
def test_non_admins_cannot_update_or_delete(keystone_client, db, roles):
    db_quotas.set_project_limits(db, project_id='p1', limits={'volumes': 3})
    resp = put(keystone_client, {'quota_set': {'volumes': 5}}, headers=identity(roles))
    assert resp.status_code == 403
    resp = keystone_client.simulate_delete(URL, headers=identity(roles))
    assert resp.status_code == 403
    assert own_limits(db) == {'volumes': 3}


def test_delete_resets_to_defaults_and_keeps_usage(client, db, conf):
    db_quotas.set_project_limits(db, project_id='p1', limits={'volumes': 3})
    quota.commit(db, None, quota.reserve(db, None, conf=conf, project_id='p1',
                                         deltas={'volumes': 2}))
    resp = client.simulate_delete(URL, headers=ADMIN)
    assert (resp.status_code, resp.text) == (200, '')
    assert own_limits(db) == {}
    shown = client.simulate_get(URL, headers=ADMIN, params={'usage': 'true'}).json
    assert shown['quota_set']['volumes'] == {'limit': 10, 'in_use': 2, 'reserved': 0}
