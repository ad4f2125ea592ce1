"""os-quota-class-sets: show and update a class (admin only); bad bodies write nothing."""

import pytest

from cinderlike.db import quotas as db_quotas
from tests.unit.api.conftest import ADMIN

URL = '/v3/os-quota-class-sets/gold'
DEFAULTS = {'volumes': 10, 'per_volume_gigabytes': -1, 'snapshots': 10, 'gigabytes': 1000,
            'backups': 10, 'backup_gigabytes': 1000, 'groups': 10}


def class_limits(db, name='gold'):
    return db_quotas.get_class_limits(db, class_name=name)


def test_show_falls_back_to_the_default_class(client, db):
    db_quotas.set_class_limits(db, class_name='default', limits={'snapshots': 4})
    db_quotas.set_class_limits(db, class_name='gold', limits={'volumes': 50})
    resp = client.simulate_get(URL, headers=ADMIN)
    assert resp.status_code == 200
    assert resp.json == {'quota_class_set': dict(DEFAULTS, volumes=50, snapshots=4, id='gold')}


def test_update_writes_and_answers_without_id(client, db):
    resp = client.simulate_put(URL, headers=ADMIN,
                               json={'quota_class_set': {'volumes': 20, 'gigabytes': '30'}})
    assert resp.status_code == 200
    assert resp.json == {'quota_class_set': dict(DEFAULTS, volumes=20, gigabytes=30)}
    assert class_limits(db) == {'volumes': 20, 'gigabytes': 30}


def test_updating_class_default_changes_every_projects_defaults(client):
    client.simulate_put('/v3/os-quota-class-sets/default', headers=ADMIN,
                        json={'quota_class_set': {'volumes': 3}})
    shown = client.simulate_get('/v3/os-quota-sets/p9', headers=ADMIN).json['quota_set']
    assert shown['volumes'] == 3


@pytest.mark.parametrize('body, message', [
    ({'quota_class_set': {'foo': 1, 'volumes': 2}},
     'Invalid input received: Bad key(s) in quota class set: foo'),
    ({'quota_class_set': {'volumes': -2}},
     'Invalid input for field/attribute volumes. Value: -2. -2 is less than the minimum of -1'),
    ({'quota_class_set': {'volumes': 'abc'}},
     "Invalid input for field/attribute volumes. Value: abc. 'abc' does not match "
     "'^[0-9]*$'"),
    ({'quota_class_set': {'volumes': 2 ** 31}},
     'Invalid input for field/attribute volumes. Value: 2147483648. 2147483648 is greater '
     'than the maximum of 2147483647'),
    ({'quota_class_set': {'volumes': 1.5}},
     "Invalid input for field/attribute volumes. Value: 1.5. 1.5 is not of type 'integer', "
     "'string'"),
    ({}, "'quota_class_set' is a required property"),
    ({'quota_class_set': {}, 'x': 1}, "Additional properties are not allowed ('x' was "
                                      "unexpected)"),
])
def test_bad_bodies_are_refused_and_write_nothing(client, db, body, message):
    resp = client.simulate_put(URL, headers=ADMIN, json=body)
    assert resp.status_code == 400
    assert resp.json == {'badRequest': {'code': 400, 'message': message}}
    assert class_limits(db) == {}


def test_class_name_over_255_is_refused(client, db):
    resp = client.simulate_put('/v3/os-quota-class-sets/' + 'c' * 256, headers=ADMIN,
                               json={'quota_class_set': {'volumes': 1}})
    assert resp.status_code == 400
    assert resp.json['badRequest']['message'] == (
        'Invalid input received: quota_class_name has 256 characters, more than 255.')


@pytest.mark.parametrize('roles', ['reader', 'member'])
def test_non_admins_are_refused(keystone_client, db, roles):
    headers = {'X-User-Id': 'u1', 'X-Project-Id': 'p1', 'X-Roles': roles}
    resp = keystone_client.simulate_get(URL, headers=headers)
    assert resp.status_code == 403
    assert resp.json['forbidden']['message'] == (
        "Policy doesn't allow volume_extension:quota_classes:get to be performed.")
    resp = keystone_client.simulate_put(URL, headers=headers,
                                        json={'quota_class_set': {'volumes': 1}})
    assert resp.status_code == 403
    assert class_limits(db) == {}
