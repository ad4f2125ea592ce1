"""Retype and migration through the real clients against the four daemons, with two `file`
backends: python-cinderclient (volumes.retype, migrate_volume, migrate_volume_completion),
the `cinder` CLI (retype, migrate), openstacksdk and the `openstack` CLI (`volume set --type
--retype-policy`, `volume migrate --host`)."""

import json
import pathlib
import shutil
import subprocess
import sys

import pytest
from cinderclient import client as cinder_client
from cinderclient import exceptions
from cinderclient.contrib import noauth
from keystoneauth1 import session
from openstack import exceptions as sdk_exceptions

from tests.functional.clients.helpers import settle
from tests.functional.clients.test_openstacksdk import _connect
from tests.functional.e2e.stack import PROJECT, deployed

pytestmark = [pytest.mark.rabbit, pytest.mark.postgresql, pytest.mark.qemu_img]

BIN = pathlib.Path(sys.executable).parent
CINDER = shutil.which('cinder', path=str(BIN))
OPENSTACK = shutil.which('openstack', path=str(BIN))
STARTUP = 90
BACKENDS = ('b1', 'b2')


@pytest.fixture(scope='module')
def stack(tmp_path_factory, postgresql_server_url, rabbit_url):
    """This module's own stack: two file backends, so a migration has bytes to copy."""
    workdir = tmp_path_factory.mktemp('clients-migrate')

    def configure(made):
        for backend in BACKENDS:
            made.update_config(backend, volume_driver='file', target_helper='fake',
                               file_volume_directory=workdir / f'volumes-{backend}')
    with deployed(workdir, server_url=postgresql_server_url, transport_url=rabbit_url,
                  backends=BACKENDS, configure=configure, timeout=STARTUP) as made:
        yield made


@pytest.fixture(scope='module')
def cinder(stack):
    auth = noauth.CinderNoAuthPlugin('admin', PROJECT,
                                     endpoint=f'http://127.0.0.1:{stack.api_port}/v3')
    return cinder_client.Client('3.71', session=session.Session(auth=auth))


@pytest.fixture(scope='module')
def types(cinder):
    made = {}
    for backend in BACKENDS:
        vtype = cinder.volume_types.create(f'mig-{backend}')
        vtype.set_keys({'volume_backend_name': backend})
        made[backend] = vtype
    return made


def _pool(stack, backend):
    return f'{stack.host}@{backend}#{backend}'


def _host(volume):
    return getattr(volume, 'os-vol-host-attr:host')


def _settled(cinder, volume_id, what):
    return settle(lambda: cinder.volumes.get(volume_id),
                  until=lambda v: v.status in ('available', 'in-use', 'error'), what=what)


def _moved(cinder, volume_id, what):
    return settle(lambda: cinder.volumes.get(volume_id),
                  until=lambda v: getattr(v, 'os-vol-mig-status-attr:migstat') in (
                      'success', 'error') and v.status == 'available', what=what)


def _volume(cinder, name, vtype=None):
    volume = cinder.volumes.create(1, name=name, volume_type=vtype)
    volume = _settled(cinder, volume.id, f'volume {name}')
    assert volume.status == 'available'
    return volume


def _cinder_cli(stack, *args):
    command = [CINDER, '--os-auth-type', 'noauth', '--os-user-id', 'admin',
               '--os-project-id', PROJECT,
               '--os-endpoint', f'http://127.0.0.1:{stack.api_port}/v3',
               '--os-volume-api-version', '3.71', *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120)


def _openstack(stack, *args):
    command = [OPENSTACK, '--os-auth-type', 'admin_token', '--os-token', f'admin:{PROJECT}',
               '--os-endpoint', f'http://127.0.0.1:{stack.api_port}/v3/{PROJECT}', *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120)


def _other(backend):
    return 'b2' if backend == 'b1' else 'b1'


def _backend(volume):
    return _host(volume).partition('@')[2].partition('#')[0]


def test_cinderclient_retype_on_demand_and_migrate(stack, cinder, types, name):
    volume = _volume(cinder, name, types['b1'].id)
    cinder.volumes.retype(volume, 'mig-b2', 'on-demand')
    done = _moved(cinder, volume.id, 'the retype to migrate')
    assert (done.volume_type, _host(done)) == ('mig-b2', _pool(stack, 'b2'))
    plain = _volume(cinder, f'{name}-plain')
    to = _other(_backend(plain))
    cinder.volumes.migrate_volume(plain, _pool(stack, to), True, False)
    done = _moved(cinder, plain.id, 'the migration')
    assert (getattr(done, 'os-vol-mig-status-attr:migstat'), _host(done)) == (
        'success', _pool(stack, to))
    # Nova's callback outside a migration keeps the new volume.
    first, second = _volume(cinder, f'{name}-a'), _volume(cinder, f'{name}-b')
    assert cinder.volumes.migrate_volume_completion(first, second, False) == {
        'save_volume_id': second.id}


def test_cinderclient_refusals(stack, cinder, types, name):
    volume = _volume(cinder, name, types['b1'].id)
    with pytest.raises(exceptions.BadRequest, match='destination host/cluster must be'):
        cinder.volumes.migrate_volume(volume, _pool(stack, 'b1'), False, False)
    with pytest.raises(exceptions.NotFound, match='Volume type with name nope'):
        cinder.volumes.retype(volume, 'nope', 'never')
    with pytest.raises(exceptions.BadRequest, match='Retype needs volume to be'):
        cinder.volumes.retype(volume, 'mig-b1', 'never')
    assert cinder.volumes.get(volume.id).status == 'available'


def test_cinder_cli_retype_and_migrate(stack, cinder, types, name):
    volume = _volume(cinder, name, types['b1'].id)
    done = _cinder_cli(stack, 'retype', '--migration-policy', 'on-demand', volume.id, 'mig-b2')
    assert done.returncode == 0, done.stderr
    moved = _moved(cinder, volume.id, 'the CLI retype')
    assert (moved.volume_type, _host(moved)) == ('mig-b2', _pool(stack, 'b2'))
    plain = _volume(cinder, f'{name}-plain')
    to = _other(_backend(plain))
    done = _cinder_cli(stack, 'migrate', '--force-host-copy', 'True', '--lock-volume', 'True',
                       plain.id, _pool(stack, to))
    assert done.returncode == 0, done.stderr
    assert _host(_moved(cinder, plain.id, 'the CLI migration')) == _pool(stack, to)
    # NOTE(cli): `cinder migrate` prints the API's refusal and exits 0 (cinderclient's).
    refused = _cinder_cli(stack, 'migrate', plain.id, 'nowhere@x')
    assert "No available service named 'nowhere@x' (HTTP 400)" in refused.stdout


def test_openstacksdk_retype_and_migrate(stack, cinder, types, name):
    bs = _connect(stack)
    volume = _volume(cinder, name, types['b1'].id)
    bs.retype_volume(volume.id, 'mig-b2', 'on-demand')
    assert _host(_moved(cinder, volume.id, 'the sdk retype')) == _pool(stack, 'b2')
    with pytest.raises(sdk_exceptions.BadRequestException, match='must be different'):
        bs.migrate_volume(volume.id, host=_pool(stack, 'b2'))


def test_openstack_cli_set_type_and_migrate(stack, cinder, types, name):
    volume = _volume(cinder, name, types['b1'].id)
    done = _openstack(stack, 'volume', 'set', '--type', 'mig-b2', '--retype-policy',
                      'on-demand', volume.id)
    assert done.returncode == 0, done.stderr
    moved = _moved(cinder, volume.id, 'the openstack CLI retype')
    assert (moved.volume_type, _host(moved)) == ('mig-b2', _pool(stack, 'b2'))
    plain = _volume(cinder, f'{name}-plain')
    to = _other(_backend(plain))
    done = _openstack(stack, 'volume', 'migrate', '--host', _pool(stack, to),
                      '--force-host-copy', plain.id)
    assert done.returncode == 0, done.stderr
    assert _host(_moved(cinder, plain.id, 'the openstack CLI migration')) == _pool(stack, to)
    shown = json.loads(_openstack(stack, 'volume', 'show', '-f', 'json', plain.id).stdout)
    assert shown['os-vol-host-attr:host'] == _pool(stack, to)
