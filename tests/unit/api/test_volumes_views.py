"""Exactly Cinder's volume fields per call (create, update, show, detail, list), microversion
and caller, and the admin metadata Cinder shows inside `metadata`."""

import uuid

import pytest

from cinderlike.api import microversions as mv
from cinderlike.api.views import common as common_view
from cinderlike.api.views import volumes as view
from cinderlike.db import listing
from cinderlike.db import volumes as db_volumes
from cinderlike.db.models import Volume, VolumeAttachment, utcnow
from tests.unit.api.type_fixtures import PROJECT, admin, user
from tests.unit.api.volume_fixtures import action, add_volume

# Cinder's legacy_detail at 3.0, for every caller (tempest's create_volume `required` plus
# the fields it allows).
CORE = {'id', 'status', 'size', 'availability_zone', 'created_at', 'updated_at', 'attachments',
        'name', 'description', 'volume_type', 'snapshot_id', 'source_volid', 'metadata',
        'links', 'user_id', 'bootable', 'encrypted', 'replication_status',
        'consistencygroup_id', 'multiattach'}
# (microversion, field, admins only) that the v3 view builder adds.
ADDED = [(mv.GROUP_VOLUME, 'group_id', False),
         (mv.VOLUME_DETAIL_PROVIDER_ID, 'provider_id', True),
         (mv.SHARED_TARGETS_AND_SERVICE_FIELDS, 'service_uuid', False),
         (mv.SHARED_TARGETS_AND_SERVICE_FIELDS, 'shared_targets', False),
         (mv.VOLUME_CLUSTER_NAME, 'cluster_name', True),
         (mv.VOLUME_TYPE_ID_IN_VOL_DETAIL, 'volume_type_id', False),
         (mv.USE_QUOTA, 'consumes_quota', False)]
TENANT = 'os-vol-tenant-attr:tenant_id'
ADMIN_EXTENSIONS = {'os-vol-host-attr:host', 'os-vol-mig-status-attr:migstat',
                    'os-vol-mig-status-attr:name_id'}
# Each boundary and the version before it.
VERSIONS = ['3.0', '3.12', '3.13', '3.20', '3.21', '3.47', '3.48', '3.60', '3.61', '3.62',
            '3.63', '3.64', '3.65', '3.71']


def expected(version: str, *, is_admin: bool, extended: bool) -> set:
    fields = set(CORE) | ({'migration_status'} if is_admin else set())
    asked = mv.APIVersion.parse(version)
    fields |= {field for since, field, admin_only in ADDED
               if asked.matches(since) and (is_admin or not admin_only)}
    if extended:
        fields |= {TENANT} | (ADMIN_EXTENSIONS if is_admin else set())
    return fields


@pytest.fixture(params=['admin', 'member'])
def caller(request, vclient, kclient):
    """(client, headers(version), is admin, project) of an admin or a project member."""
    if request.param == 'admin':
        return vclient, lambda v: admin(v), True, 'admin'
    return kclient, lambda v: user(version=v), False, PROJECT


@pytest.mark.parametrize('version', VERSIONS)
def test_create_and_update_answer_the_view_without_extension_fields(caller, version):
    client, headers, is_admin, _project = caller
    created = client.simulate_post('/v3/volumes', json={'volume': {'size': 1, 'name': 'v'}},
                                   headers=headers(version))
    assert created.status_code == 202, created.json
    assert set(created.json['volume']) == expected(version, is_admin=is_admin, extended=False)
    volume_id = created.json['volume']['id']
    updated = client.simulate_put(f'/v3/volumes/{volume_id}', headers=headers(version),
                                  json={'volume': {'name': 'w'}})
    assert updated.status_code == 200, updated.json
    assert set(updated.json['volume']) == expected(version, is_admin=is_admin, extended=False)


@pytest.mark.parametrize('version', VERSIONS)
def test_show_and_detail_add_the_extension_fields_the_policies_allow(caller, db, version):
    client, headers, is_admin, project = caller
    volume = add_volume(db, project=project)
    shown = client.simulate_get(f'/v3/volumes/{volume.id}', headers=headers(version))
    assert set(shown.json['volume']) == expected(version, is_admin=is_admin, extended=True)
    listed = client.simulate_get('/v3/volumes/detail', headers=headers(version))
    [item] = listed.json['volumes']
    assert set(item) == expected(version, is_admin=is_admin, extended=True)
    assert item[TENANT] == project
    assert set(client.simulate_get('/v3/volumes', headers=headers(version)).json) == {
        'volumes'}
    [summary] = client.simulate_get('/v3/volumes', headers=headers(version)).json['volumes']
    assert set(summary) == {'id', 'name', 'links'}


def test_extension_values(vclient, db):
    volume = add_volume(db, host='node@fake#pool', migration_status='success',
                        _name_id='0fd8e3c2-6c6e-4f4b-9a0a-6c1e7c3f0001')
    shown = vclient.simulate_get(f'/v3/volumes/{volume.id}', headers=admin()).json['volume']
    assert {k: shown[k] for k in ADMIN_EXTENSIONS | {TENANT, 'migration_status'}} == {
        TENANT: 'admin', 'os-vol-host-attr:host': 'node@fake#pool',
        'os-vol-mig-status-attr:migstat': 'success', 'migration_status': 'success',
        'os-vol-mig-status-attr:name_id': '0fd8e3c2-6c6e-4f4b-9a0a-6c1e7c3f0001'}


def test_encryption_key_id_from_3_64_only_when_a_real_key_is_set(vclient, db):
    key = str(uuid.uuid4())
    real = add_volume(db, encryption_key_id=key)
    fixed = add_volume(db, encryption_key_id='00000000-0000-0000-0000-000000000000')

    def show(volume, version):
        return vclient.simulate_get(f'/v3/volumes/{volume.id}',
                                    headers=admin(version)).json['volume']
    assert show(real, '3.64')['encryption_key_id'] == key
    assert 'encryption_key_id' not in show(real, '3.63')
    assert 'encryption_key_id' not in show(fixed, '3.64')
    assert show(real, '3.0')['encrypted'] is show(fixed, '3.0')['encrypted'] is True


def test_attachment_host_name_for_admins_and_the_service_role(vclient, kclient, db):
    volume = add_volume(db, project=PROJECT, status='in-use', attach_status='attached')
    with db.writer() as s:
        s.add(VolumeAttachment(id=str(uuid.uuid4()), volume_id=volume.id, attached_host='cmp1',
                               instance_uuid=str(uuid.uuid4()), mountpoint='/dev/vdb',
                               attach_status='attached', attach_time=utcnow()))

    def host_name(client, headers):
        shown = client.simulate_get(f'/v3/volumes/{volume.id}', headers=headers).json
        return shown['volume']['attachments'][0]['host_name']
    assert host_name(kclient, user()) is None
    assert host_name(kclient, user(roles='reader,member,service')) == 'cmp1'
    assert host_name(vclient, admin()) == 'cmp1'


# --- admin metadata shown in `metadata` -------------------------------------------------

def _admin_metadata(db, volume_id, values):
    db_volumes.update_metadata(db, volume_id=volume_id, metadata=values, admin=True)


@pytest.mark.parametrize('readonly, shown', [(True, 'True'), (False, 'False'),
                                             ('true', 'True'), ('0', 'False')])
def test_readonly_flag_shows_in_metadata(vclient, db, readonly, shown):
    volume = add_volume(db)
    db_volumes.update_metadata(db, volume_id=volume.id, metadata={'k': 'v'})
    assert action(vclient, volume.id, {'os-update_readonly_flag': {'readonly': readonly}}
                  ).status_code == 202
    want = {'k': 'v', 'readonly': shown}
    assert vclient.simulate_get(f'/v3/volumes/{volume.id}', headers=admin()).json[
        'volume']['metadata'] == want
    [item] = vclient.simulate_get('/v3/volumes/detail', headers=admin()).json['volumes']
    assert item['metadata'] == want
    updated = vclient.simulate_put(f'/v3/volumes/{volume.id}', headers=admin(),
                                   json={'volume': {'metadata': {'k': 'w'}}})
    assert updated.json['volume']['metadata'] == {'k': 'w', 'readonly': shown}
    # The metadata resource and the stored user metadata stay the user's own.
    assert vclient.simulate_get(f'/v3/volumes/{volume.id}/metadata',
                                headers=admin()).json == {'metadata': {'k': 'w'}}
    assert db_volumes.get_metadata(db, volume_ids=[volume.id])[volume.id] == {'k': 'w'}


def test_only_readonly_and_attached_mode_are_visible_and_they_win(kclient, db):
    volume = add_volume(db, project=PROJECT)
    db_volumes.update_metadata(db, volume_id=volume.id,
                               metadata={'readonly': 'mine', 'tier': 'gold'})
    _admin_metadata(db, volume.id, {'readonly': 'True', 'attached_mode': 'ro',
                                    'extend_new_size': '2', 'temporary': 'True'})
    shown = kclient.simulate_get(f'/v3/volumes/{volume.id}', headers=user()).json['volume']
    assert shown['metadata'] == {'readonly': 'True', 'attached_mode': 'ro', 'tier': 'gold'}


def test_create_shows_only_the_requested_metadata(vclient):
    created = vclient.simulate_post('/v3/volumes', headers=admin(), json={
        'volume': {'size': 1, 'metadata': {'k': 'v'}}})
    assert created.json['volume']['metadata'] == {'k': 'v'}


def test_a_volume_without_metadata_shows_an_empty_dict(vclient, db):
    volume = add_volume(db)
    assert vclient.simulate_get(f'/v3/volumes/{volume.id}', headers=admin()).json[
        'volume']['metadata'] == {}


def test_the_views_read_only_the_columns_a_listing_selects():
    """A listing selects DETAIL_COLUMNS / SUMMARY_COLUMNS: rendered from those alone, every
    field of the latest microversion, every extension and an attachment come out as from
    the whole row (a column left out would raise AttributeError)."""
    table = Volume.__table__
    values = {c.name: f'{c.name}-value' for c in table.columns}
    values.update(size=1, bootable=True, multiattach=False, shared_targets=None,
                  use_quota=True, created_at=utcnow(), updated_at=utcnow())
    whole = listing.plain_row(table)(values[name] for name in table.columns.keys())
    attachment = VolumeAttachment(id='a', instance_uuid='i', attached_host='h',
                                  mountpoint='/dev/vdb', attach_time=utcnow())
    extras = view.Extras({'k': 'v'}, [attachment], 'type')
    links = common_view.Links(base='http://api', project_id=PROJECT)
    see = view.Visibility(admin=True, attached_host=True, tenant=True, host=True,
                          migration=True)
    for columns, render in (
            (view.DETAIL_COLUMNS, lambda row: view.detail(
                row, extras, version=mv.MAX_VERSION, links=links, see=see, call=view.DETAIL)),
            (view.SUMMARY_COLUMNS, lambda row: view.summary(row, links=links))):
        selected = listing.plain_row(table, columns)(values[name] for name in columns)
        assert render(selected) == render(whole)
