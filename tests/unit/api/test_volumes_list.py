"""GET /volumes, /volumes/detail, /volumes/summary: filters, sort, pagination, count, views."""

import threading
import time

import pytest
import sqlalchemy as sa
from falcon import testing

from cinderlike.api.app import create_app
from cinderlike.db import volume_types as db_types
from cinderlike.db import volumes as db_volumes
from cinderlike.db.models import VolumeType
from tests.unit.api.type_fixtures import PROJECT, admin, user
from tests.unit.api.volume_fixtures import add_volume, commits, fault


def _get(client, path='/v3/volumes', query=None, headers=None, version=None):
    return client.simulate_get(path, query_string=query, headers=headers or admin(version))


def _names(resp):
    assert resp.status_code == 200, resp.json
    return [v['name'] for v in resp.json['volumes']]


@pytest.fixture
def three(db, vclient):
    rows = [add_volume(db, display_name=n, size=s) for n, s in (('a', 1), ('b', 2), ('c', 3))]
    db_volumes.update_metadata(db, volume_id=rows[1].id, metadata={'tier': 'gold'})
    return rows


def test_summary_items_and_default_newest_first(vclient, three):
    resp = _get(vclient)
    assert _names(resp) == ['c', 'b', 'a']
    assert set(resp.json['volumes'][0]) == {'id', 'name', 'links'}
    assert 'volumes_links' not in resp.json


def test_filters(vclient, three):
    assert _names(_get(vclient, query='name=b')) == ['b']
    assert _names(_get(vclient, query='size=3')) == ['c']
    assert _names(_get(vclient, query="metadata={'tier':'gold'}")) == ['b']
    assert _names(_get(vclient, query='status=error')) == []
    assert _names(_get(vclient, query='name~=b', version='3.34')) == ['b']
    assert _names(_get(vclient, query='sort=name:asc')) == ['a', 'b', 'c']
    assert _names(_get(vclient, query='sort_key=size&sort_dir=asc')) == ['a', 'b', 'c']


@pytest.mark.parametrize('query, message', [
    ('limit=abc', 'limit param must be an integer'),
    ('limit=-1', 'limit param must be positive'),
    ('sort=name&sort_key=size', "The 'sort_key' and 'sort_dir' parameters are deprecated and "
                                "cannot be used with the 'sort' parameter."),
    ('sort=nope:asc', 'Invalid input received: Invalid sort key: nope'),
    ('sort=name:up', "Invalid input received: Unknown sort direction, must be 'desc' or 'asc'"),
])
def test_bad_list_parameters(vclient, three, query, message):
    assert fault(_get(vclient, query=query)) == (400, message)


def test_unknown_marker_is_404(vclient, three):
    assert fault(_get(vclient, query='marker=nope')) == (
        404, 'Marker nope could not be found.')


def test_pages_follow_next_links(vclient, three):
    first = _get(vclient, '/v3/volumes/detail', query='limit=2&sort=name:asc')
    assert _names(first) == ['a', 'b']
    link, = first.json['volumes_links']
    assert link['rel'] == 'next'
    assert f'/v3/admin/volumes/detail?limit=2&sort=name%3Aasc&marker={three[1].id}' in (
        link['href'])
    second = _get(vclient, '/v3/volumes/detail', query=link['href'].split('?', 1)[1])
    assert _names(second) == ['c'] and 'volumes_links' not in second.json


def test_max_limit_caps_pages(vclient, three, conf):
    conf.set_override('osapi_max_limit', 2)
    resp = _get(vclient)
    assert len(resp.json['volumes']) == 2 and 'volumes_links' in resp.json


def test_with_count_from_3_45(vclient, db, three):
    assert 'count' not in _get(vclient, query='with_count=true&limit=1', version='3.44').json
    committed = commits(db)
    resp = _get(vclient, query='with_count=true&limit=1', version='3.45')
    assert resp.json['count'] == 3 and len(resp.json['volumes']) == 1
    assert len(committed) == 1  # the count is read in the page's transaction
    # Cinder links to a next page whenever the limit does not pass the total count, so
    # even the short last page of a counted listing carries one.
    last = _get(vclient, query=f'with_count=true&limit=2&sort=name:asc&marker={three[1].id}',
                version='3.45')
    assert _names(last) == ['c'] and last.json['count'] == 3 and 'volumes_links' in last.json


def test_summary_from_3_12(vclient, three):
    assert _get(vclient, '/v3/volumes/summary', version='3.11').status_code == 404
    assert _get(vclient, '/v3/volumes/summary', version='3.12').json == {
        'volume-summary': {'total_size': 6, 'total_count': 3}}
    assert _get(vclient, '/v3/volumes/summary', version='3.36').json['volume-summary'][
        'metadata'] == {'tier': ['gold']}


def test_detail_fields_by_microversion(vclient, three):
    base = _get(vclient, '/v3/volumes/detail', version='3.0').json['volumes'][0]
    assert {'id', 'status', 'size', 'availability_zone', 'attachments', 'bootable', 'encrypted',
            'metadata', 'volume_type', 'os-vol-host-attr:host', 'os-vol-tenant-attr:tenant_id',
            'os-vol-mig-status-attr:migstat', 'migration_status', 'multiattach',
            'replication_status', 'user_id', 'links'} <= set(base)
    assert 'group_id' not in base and 'service_uuid' not in base
    latest = _get(vclient, '/v3/volumes/detail', version='3.71').json['volumes'][0]
    assert {'group_id', 'provider_id', 'service_uuid', 'shared_targets', 'cluster_name',
            'volume_type_id', 'consumes_quota'} <= set(latest)
    # Without a key there is no encryption_key_id (test_volumes_views has every field).
    assert 'encryption_key_id' not in latest


def test_non_admin_sees_own_project_and_no_admin_fields(kclient, db):
    add_volume(db, project=PROJECT, display_name='mine')
    add_volume(db, project='other', display_name='theirs')
    resp = _get(kclient, '/v3/volumes/detail', headers=user(version='3.71'))
    assert _names(resp) == ['mine']
    shown = resp.json['volumes'][0]
    assert 'os-vol-host-attr:host' not in shown and 'cluster_name' not in shown
    assert shown['os-vol-tenant-attr:tenant_id'] == PROJECT


def test_non_admin_filters_are_checked_from_3_31(kclient, db):
    add_volume(db, project=PROJECT, display_name='mine')
    assert fault(_get(kclient, query='host=x', headers=user(version='3.31'))) == (
        400, 'Invalid filters host are found in query options.')
    assert _names(_get(kclient, query='host=x', headers=user(version='3.30'))) == ['mine']
    assert _names(_get(kclient, query='all_tenants=1', headers=user(version='3.31'))) == [
        'mine']


def test_admin_all_tenants(vclient, db):
    add_volume(db, project='other', display_name='theirs')
    assert _names(_get(vclient)) == []
    assert _names(_get(vclient, query='all_tenants=1')) == ['theirs']


def test_show_and_404(vclient, kclient, db):
    theirs = add_volume(db, project='other')
    assert _get(vclient, f'/v3/volumes/{theirs.id}').json['volume']['id'] == theirs.id
    assert fault(_get(kclient, f'/v3/volumes/{theirs.id}', headers=user())) == (
        404, f'Volume {theirs.id} could not be found.')


def _overlap(conf, seeded, rpc, monkeypatch, *, turns: int, hold) -> int:
    """How many volume listings ran at once at most, of two sent together, with *turns*
    listing turns per process; *hold* runs inside each listing's database read."""
    conf.set_override('osapi_volume_listings_at_once', turns)
    client = testing.TestClient(create_app(conf, db=seeded, rpc=rpc))
    add_volume(seeded)
    inside, most, lock = [0], [0], threading.Lock()
    real = db_volumes.get_all

    def get_all(*args, **kwargs):
        with lock:
            inside[0] += 1
            most[0] = max(most[0], inside[0])
        try:
            hold()
            return real(*args, **kwargs)
        finally:
            with lock:
                inside[0] -= 1

    monkeypatch.setattr(db_volumes, 'get_all', get_all)
    answers = []
    threads = [threading.Thread(target=lambda path=path: answers.append(
        _get(client, path).status_code)) for path in ('/v3/volumes/detail', '/v3/volumes')]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert answers == [200, 200]
    return most[0]


def test_one_listing_at_a_time_by_default(conf, seeded, rpc, monkeypatch):
    assert _overlap(conf, seeded, rpc, monkeypatch, turns=1,
                    hold=lambda: time.sleep(0.05)) == 1


def test_listings_at_once_lets_that_many_run_together(conf, seeded, rpc, monkeypatch):
    both_inside = threading.Barrier(2, timeout=30)
    assert _overlap(conf, seeded, rpc, monkeypatch, turns=2, hold=both_inside.wait) == 2


def test_a_listing_names_each_volumes_type_a_deleted_one_too(db, vclient):
    gold = db_types.create(db, name='gold')
    add_volume(db, display_name='on-gold', volume_type_id=gold.id)
    add_volume(db, display_name='on-default')
    # NOTE(deleted): as get_type_names; the API refuses to delete a type in use.
    with db.writer() as s:
        s.execute(sa.update(VolumeType).where(VolumeType.id == gold.id).values(deleted=True))
    shown = {v['name']: v['volume_type'] for v in _get(vclient, '/v3/volumes/detail').json[
        'volumes']}
    assert shown == {'on-gold': 'gold', 'on-default': '__DEFAULT__'}
