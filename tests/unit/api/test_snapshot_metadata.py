"""/snapshots/{id}/metadata[/{key}]: show, merge, replace, one key; refusals change nothing."""

import pytest

from cinderlike.db import snapshots as db_snapshots
from tests.unit.api.snapshot_fixtures import add_snapshot, fault
from tests.unit.api.test_snapshots_create import MISSING
from tests.unit.api.type_fixtures import PROJECT, admin, user
from tests.unit.api.volume_fixtures import add_volume


def _path(snapshot_id, key=None):
    path = f'/v3/snapshots/{snapshot_id}/metadata'
    return path if key is None else f'{path}/{key}'


def _metadata(db, snapshot_id):
    return db_snapshots.get_metadata(db, snapshot_ids=[snapshot_id])[snapshot_id]


@pytest.fixture
def snapshot(db):
    return add_snapshot(db, add_volume(db), metadata={'a': '1', 'b': '2'})


def test_show_all_and_one_key(vclient, snapshot):
    assert vclient.simulate_get(_path(snapshot.id), headers=admin()).json == {
        'metadata': {'a': '1', 'b': '2'}}
    assert vclient.simulate_get(_path(snapshot.id, 'a'), headers=admin()).json == {
        'meta': {'a': '1'}}
    resp = vclient.simulate_get(f'/v3/admin/snapshots/{snapshot.id}/metadata/b',
                                headers=admin())
    assert resp.json == {'meta': {'b': '2'}}


def test_post_merges_and_answers_the_whole_set(vclient, db, snapshot):
    resp = vclient.simulate_post(_path(snapshot.id), json={'metadata': {'b': 'x', 'c': '3'}},
                                 headers=admin())
    assert resp.status_code == 200
    assert resp.json == {'metadata': {'a': '1', 'b': 'x', 'c': '3'}}
    assert _metadata(db, snapshot.id) == {'a': '1', 'b': 'x', 'c': '3'}


def test_put_replaces_the_whole_set(vclient, db, snapshot):
    resp = vclient.simulate_put(_path(snapshot.id), json={'metadata': {'c': '3'}},
                                headers=admin())
    assert resp.json == {'metadata': {'c': '3'}} and _metadata(db, snapshot.id) == {'c': '3'}
    resp = vclient.simulate_put(_path(snapshot.id), json={'metadata': {}}, headers=admin())
    assert resp.json == {'metadata': {}} and _metadata(db, snapshot.id) == {}


def test_put_one_key_sets_it(vclient, db, snapshot):
    resp = vclient.simulate_put(_path(snapshot.id, 'a'), json={'meta': {'a': 'new'}},
                                headers=admin())
    assert resp.status_code == 200 and resp.json == {'meta': {'a': 'new'}}
    assert _metadata(db, snapshot.id) == {'a': 'new', 'b': '2'}


def test_delete_one_key(vclient, db, snapshot):
    resp = vclient.simulate_delete(_path(snapshot.id, 'a'), headers=admin())
    assert resp.status_code == 200 and not resp.content
    assert _metadata(db, snapshot.id) == {'b': '2'}
    assert fault(vclient.simulate_delete(_path(snapshot.id, 'a'), headers=admin())) == (
        404, f'Snapshot {snapshot.id} has no metadata with key a.')


def test_an_unknown_key_is_404(vclient, snapshot):
    assert fault(vclient.simulate_get(_path(snapshot.id, 'zz'), headers=admin())) == (
        404, f'Snapshot {snapshot.id} has no metadata with key zz.')


@pytest.mark.parametrize('method, key', [('get', None), ('post', None), ('put', None),
                                         ('get', 'a'), ('put', 'a'), ('delete', 'a')])
def test_an_unknown_snapshot_is_404(vclient, db, method, key):
    body = {'meta': {'a': '1'}} if key else {'metadata': {'a': '1'}}
    # A body on GET or DELETE is a 400, as Cinder: only writes carry one.
    resp = getattr(vclient, f'simulate_{method}')(
        _path(MISSING, key), json=body if method in ('post', 'put') else None,
        headers=admin())
    assert fault(resp) == (404, f'Snapshot {MISSING} could not be found.')


_KEY_PATTERN = "'^[a-zA-Z0-9-_:. ]{1,255}$'"


@pytest.mark.parametrize('body, message', [
    (None, "None is not of type 'object'"),
    ({}, "'metadata' is a required property"),
    ({'metadata': 'x'}, "Invalid input for field/attribute metadata. Value: x. 'x' is not of "
                        "type 'object'"),
    ({'metadata': {'a/b': '1'}}, "Invalid input for field/attribute metadata. Value: "
                                 "{'a/b': '1'}. 'a/b' does not match any of the regexes: "
                                 f"{_KEY_PATTERN}"),
    ({'metadata': {'a': 1}}, "Invalid input for field/attribute a. Value: 1. 1 is not of type "
                             "'string'"),
    ({'metadata': {'a': 'v' * 256}}, f"Invalid input for field/attribute a. Value: {'v' * 256}"
                                     f". '{'v' * 256}' is too long"),
])
@pytest.mark.parametrize('method', ['post', 'put'])
def test_bad_metadata_bodies_are_400_and_change_nothing(vclient, db, snapshot, method, body,
                                                        message):
    resp = getattr(vclient, f'simulate_{method}')(_path(snapshot.id), json=body,
                                                 headers=admin())
    assert fault(resp) == (400, message)
    assert _metadata(db, snapshot.id) == {'a': '1', 'b': '2'}


@pytest.mark.parametrize('key, body, message', [
    ('a', {'meta': {'b': '1'}}, 'Request body and URI mismatch'),
    ('a', {'meta': {'a': '1', 'b': '2'}}, "Invalid input for field/attribute meta. Value: "
                                          "{'a': '1', 'b': '2'}. {'a': '1', 'b': '2'} has "
                                          "too many properties"),
    ('a', {'meta': {}}, 'Invalid input for field/attribute meta. Value: {}. {} should be '
                        'non-empty'),
    ('a', {'metadata': {'a': '1'}}, "'meta' is a required property"),
])
def test_bad_item_bodies_are_400_and_change_nothing(vclient, db, snapshot, key, body,
                                                    message):
    resp = vclient.simulate_put(_path(snapshot.id, key), json=body, headers=admin())
    assert fault(resp) == (400, message)
    assert _metadata(db, snapshot.id) == {'a': '1', 'b': '2'}


def test_readers_read_members_write(kclient, db):
    snapshot = add_snapshot(db, add_volume(db, project=PROJECT), metadata={'a': '1'})
    reader = user('reader')
    assert kclient.simulate_get(_path(snapshot.id), headers=reader).status_code == 200
    for method, key, body, rule in (
            ('post', None, {'metadata': {'x': '1'}}, 'update'),
            ('put', None, {'metadata': {'x': '1'}}, 'update'),
            ('put', 'a', {'meta': {'a': '2'}}, 'update'),
            ('delete', 'a', None, 'delete')):
        resp = getattr(kclient, f'simulate_{method}')(_path(snapshot.id, key), json=body,
                                                     headers=reader)
        assert fault(resp) == (
            403, f"Policy doesn't allow volume:{rule}_snapshot_metadata to be performed.")
    assert _metadata(db, snapshot.id) == {'a': '1'}
    resp = kclient.simulate_post(_path(snapshot.id), json={'metadata': {'x': '1'}},
                                 headers=user())
    assert resp.json == {'metadata': {'a': '1', 'x': '1'}}
    assert fault(kclient.simulate_get(_path(snapshot.id), headers=user(''))) == (
        403, "Policy doesn't allow volume:get_snapshot_metadata to be performed.")


def test_a_destroyed_snapshot_takes_its_metadata_along(vclient, db, snapshot):
    db_snapshots.MACHINE.destroy(db, row_id=snapshot.id)
    assert _metadata(db, snapshot.id) == {}
    assert fault(vclient.simulate_get(_path(snapshot.id), headers=admin()))[0] == 404
