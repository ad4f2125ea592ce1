"""Generic volume groups through real clients against the four daemons (fake driver on b1
and b2): python-cinderclient (library and `cinder` CLI: group-type-create, group-create,
group-snapshot-create, group-create-from-src) and openstacksdk's block-storage proxy."""

import pathlib
import shutil
import subprocess
import sys

import pytest
from cinderclient import exceptions as cinder_exceptions
from openstack import exceptions as sdk_exceptions

from tests.functional.clients.helpers import SETTLE, settle
from tests.functional.clients.test_cinderclient import cinder  # noqa: F401 - fixture
from tests.functional.clients.test_openstacksdk import bs  # noqa: F401 - fixture
from tests.functional.e2e.stack import PROJECT, wait_for

pytestmark = [pytest.mark.rabbit, pytest.mark.postgresql]

CINDER = shutil.which('cinder', path=str(pathlib.Path(sys.executable).parent))


def _gone(ids, item_id, what):
    """Wait until *item_id* is no longer in ids() (a listing's ids)."""
    wait_for(lambda: item_id not in ids(), timeout=SETTLE, what=f'{what} to go')


def _until(fetch, status, what):
    return settle(fetch, until=lambda r: r.status == status, what=f'{what} to be {status}')


def _types_on_b1(cinder, name):  # noqa: F811
    made = []
    for suffix in ('a', 'b'):
        vtype = cinder.volume_types.create(f'{name}-{suffix}')
        vtype.set_keys({'volume_backend_name': 'b1'})
        made.append(vtype)
    return made


def test_cinderclient_library(cinder, stack, name):  # noqa: F811
    gtype = cinder.group_types.create(name, description='by cinderclient')
    gtype.set_keys({'consistent_group_snapshot_enabled': '<is> True'})
    assert cinder.group_types.get(gtype.id).get_keys() == {
        'consistent_group_snapshot_enabled': '<is> True'}
    assert name in [t.name for t in cinder.group_types.list()]
    types = _types_on_b1(cinder, name)
    group = cinder.groups.create(gtype.id, ','.join(t.name for t in types), name=name)
    group = _until(lambda: cinder.groups.get(group.id), 'available', 'the group')
    assert sorted(group.volume_types) == sorted(t.id for t in types)
    volumes = [cinder.volumes.create(1, volume_type=t.name, group_id=group.id) for t in types]
    for volume in volumes:
        volume = _until(lambda v=volume: cinder.volumes.get(v.id), 'available', 'a member')
        assert getattr(volume, 'os-vol-host-attr:host') == f'{stack.host}@b1#b1'
        assert volume.group_id == group.id
    assert sorted(cinder.groups.get(group.id, list_volume=True).volumes) == sorted(
        v.id for v in volumes)
    with pytest.raises(cinder_exceptions.BadRequest, match='belong to a group'):
        cinder.volumes.delete(volumes[0])

    cinder.groups.update(group, remove_volumes=volumes[0].id)
    _until(lambda: cinder.groups.get(group.id), 'available', 'the update')
    assert cinder.groups.get(group.id, list_volume=True).volumes == [volumes[1].id]
    cinder.groups.update(group, add_volumes=volumes[0].id, name=f'{name}-renamed')
    group = _until(lambda: cinder.groups.get(group.id), 'available', 'the update')
    assert group.name == f'{name}-renamed'
    assert len(cinder.groups.get(group.id, list_volume=True).volumes) == 2

    gsnap = cinder.group_snapshots.create(group.id, name=name)
    gsnap = _until(lambda: cinder.group_snapshots.get(gsnap.id), 'available', 'the snapshot')
    assert gsnap.group_id == group.id
    copy = cinder.groups.create_from_src(gsnap.id, None, name=f'{name}-copy')
    copy = _until(lambda: cinder.groups.get(copy['id']), 'available', 'the copy')
    assert len(cinder.groups.get(copy.id, list_volume=True).volumes) == 2

    with pytest.raises(cinder_exceptions.BadRequest, match='snapshots'):
        cinder.groups.delete(group, delete_volumes=True)
    cinder.group_snapshots.delete(gsnap)
    _gone(lambda: [g.id for g in cinder.group_snapshots.list()], gsnap.id, 'the snapshot')
    for doomed in (copy, group):
        cinder.groups.delete(doomed, delete_volumes=True)
        _gone(lambda: [g.id for g in cinder.groups.list()], doomed.id, f'group {doomed.id}')
    with pytest.raises(cinder_exceptions.NotFound):
        cinder.volumes.get(volumes[0].id)
    cinder.group_types.delete(gtype)


@pytest.fixture(scope='module')
def cli(stack):
    assert CINDER is not None, 'cinder CLI not found: pip install -e .[test]'

    def run(*args):
        done = subprocess.run(
            [CINDER, '--os-auth-type', 'noauth', '--os-user-id', 'admin',
             '--os-project-id', PROJECT,
             '--os-endpoint', f'http://127.0.0.1:{stack.api_port}/v3',
             '--os-volume-api-version', '3.71', *args],
            capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        return done.stdout
    return run


def _rows(table: str) -> list[list[str]]:
    return [[c.strip() for c in line.strip().strip('|').split('|')]
            for line in table.splitlines() if line.startswith('|')]


def _field(table: str, key: str) -> str:
    """*key*'s value in cinderclient's `| Property | Value |` table, or the *key* column of
    the one row of a listing table (`| ID | Name | ... |`)."""
    rows = _rows(table)
    for cells in rows:
        if len(cells) == 2 and cells[0] == key:
            return cells[1]
    if rows and key in rows[0] and len(rows) == 2:
        return rows[1][rows[0].index(key)]
    raise AssertionError(f'{key} not in {table}')


def test_cinder_cli(cli, cinder, name):  # noqa: F811
    gtype_id = _field(cli('group-type-create', name), 'ID')
    types = _types_on_b1(cinder, name)
    group_id = _field(cli('group-create', '--name', name, gtype_id,
                          ','.join(t.name for t in types)), 'id')
    _until(lambda: cinder.groups.get(group_id), 'available', 'the group')
    volume = cinder.volumes.create(1, volume_type=types[0].name, group_id=group_id)
    _until(lambda: cinder.volumes.get(volume.id), 'available', 'the member')
    gsnap_id = _field(cli('group-snapshot-create', '--name', name, group_id), 'id')
    _until(lambda: cinder.group_snapshots.get(gsnap_id), 'available', 'the snapshot')
    copy_id = _field(cli('group-create-from-src', '--group-snapshot', gsnap_id, '--name',
                         f'{name}-copy'), 'id')
    _until(lambda: cinder.groups.get(copy_id), 'available', 'the copy')
    assert len(cinder.groups.get(copy_id, list_volume=True).volumes) == 1
    listed = cli('group-list')
    assert group_id in listed and copy_id in listed
    cli('group-snapshot-delete', gsnap_id)
    _gone(lambda: cli('group-snapshot-list'), gsnap_id, 'the group snapshot')
    cli('group-delete', '--delete-volumes', group_id, copy_id)
    for doomed in (group_id, copy_id):
        _gone(lambda: cli('group-list'), doomed, f'group {doomed}')


def test_openstacksdk(bs, name):  # noqa: F811
    gtype = bs.create_group_type(name=name, description='by openstacksdk')
    bs.create_group_type_group_specs(gtype, {'k': 'v'})
    assert bs.fetch_group_type_group_specs(gtype).group_specs == {'k': 'v'}
    vtype = bs.create_type(name=name, extra_specs={'volume_backend_name': 'b2'})
    group = bs.create_group(name=name, group_type=gtype.id, volume_types=[vtype.id])
    group = settle(lambda: bs.get_group(group.id), until=lambda g: g.status == 'available',
                   what='the group')
    assert group.volume_types == [vtype.id]
    assert group.id in [g.id for g in bs.groups()]
    volume = bs.create_volume(size=1, volume_type=name, group_id=group.id)
    settle(lambda: bs.get_volume(volume.id), until=lambda v: v.status == 'available',
           what='the member')
    gsnap = bs.create_group_snapshot(group_id=group.id, name=name)
    gsnap = settle(lambda: bs.get_group_snapshot(gsnap.id),
                   until=lambda g: g.status == 'available', what='the group snapshot')
    assert gsnap.group_id == group.id
    # NOTE(sdk): the SDK sends `{"enable_replication": null}`, which Cinder's schema refuses
    # too; either way nothing pretends to replicate.
    with pytest.raises(sdk_exceptions.BadRequestException):
        bs.enable_group_replication(group)
    assert bs.get_group(group.id).replication_status == 'disabled'
    bs.delete_group_snapshot(gsnap)
    _gone(lambda: [g.id for g in bs.group_snapshots()], gsnap.id, 'the group snapshot')
    bs.delete_group(group, delete_volumes=True)
    _gone(lambda: [g.id for g in bs.groups()], group.id, 'the group')
    with pytest.raises(sdk_exceptions.NotFoundException):
        bs.get_volume(volume.id)
    bs.delete_group_type(gtype)
    assert name not in [t.name for t in bs.group_types()]

