"""The Swift backup driver with Keystone (tests/fixtures/keystone.py) in front of a real Swift:
per_user with a user's token and the catalog keystonemiddleware hands the API, single_user
with Keystone v3 credentials, and backup_swift_service_auth's X-Service-Token on accounts
whose Swift demands one."""

import contextlib

import pytest
from keystoneauth1 import loading as ks_loading

from cinderlike import context as cl_context
from cinderlike import exception
from tests.fixtures import keystone as keystone_fixtures
from tests.fixtures import swift as swift_fixtures
from tests.functional.test_backup_swift import _driver, _pattern, _restore
from tests.unit.drivers.backup.conftest import MiB, VolumeFile, ref, sha, stored

pytestmark = pytest.mark.swift


@pytest.fixture(scope='module')
def keystone_swift(tmp_path_factory):
    """A Keystone, and a Swift that accepts its tokens (accounts KEY_<project id>)."""
    if swift_fixtures.missing():
        pytest.fail(f'swift tests are required but {", ".join(swift_fixtures.missing())} '
                    'is missing')
    workdir = tmp_path_factory.mktemp('keystone-swift')
    (workdir / 'keystone').mkdir()
    keystone = keystone_fixtures.Keystone(workdir / 'keystone')
    with contextlib.ExitStack() as stack:
        keystone.start()
        stack.callback(keystone.stop)
        service = keystone.user('swift', project_name='service', roles=('admin', 'service'))
        server = swift_fixtures.Swift(workdir / 'swift', keystone={
            'www_authenticate_uri': keystone.auth_url, 'auth_url': keystone.auth_url,
            'auth_type': 'password', 'username': service.name, 'password': service.password,
            'project_name': 'service', 'user_domain_name': 'Default',
            'project_domain_name': 'Default'})
        url = (f'{server.endpoint}/v1/{swift_fixtures.KEYSTONE_PREFIX}$(project_id)s')
        service_id = keystone._post('/services', {'service': {
            'type': 'object-store', 'name': 'swift'}})['service']['id']
        for interface in ('public', 'internal', 'admin'):
            keystone._post('/endpoints', {'endpoint': {
                'service_id': service_id, 'interface': interface, 'url': url,
                'region_id': keystone_fixtures.REGION}})
        try:
            server.start()
        except RuntimeError as exc:
            server.stop()
            pytest.fail(f'Swift cannot start: {exc}')
        stack.callback(server.stop)
        users = {name: keystone.user(name, project_name=f'{name}-project', roles=('member',))
                 for name in ('alice', 'bob')}
        yield keystone, server, users


def _v2_catalog(access) -> list:
    """The token's catalog as keystonemiddleware passes it (X-Service-Catalog, v2 style)."""
    catalog = []
    for service in access.service_catalog.catalog:
        endpoints = {}
        for endpoint in service['endpoints']:
            region = endpoints.setdefault(endpoint['region_id'], {'region': endpoint['region']})
            region[f'{endpoint["interface"]}URL'] = endpoint['url']
        catalog.append({'type': service['type'], 'name': service.get('name'),
                        'endpoints': list(endpoints.values())})
    return catalog


def _context(keystone, user):
    session = keystone.session(user)
    access = session.auth.get_access(session)
    return cl_context.RequestContext(auth_token=access.auth_token, project_id=access.project_id,
                                     user_id=access.user_id,
                                     service_catalog=_v2_catalog(access))


def test_per_user_with_a_keystone_token_and_its_catalog(keystone_swift):
    keystone, server, users = keystone_swift
    ctx = _context(keystone, users['alice'])
    driver = _driver(server, context=ctx, backup_swift_auth='per_user',
                     backup_compression_algorithm='zstd')
    data = _pattern(2 * MiB)
    backup = stored(b := ref(), driver.backup(b, VolumeFile(data)))
    assert sha(_restore(driver, backup, len(data))) == sha(data)
    assert driver.conn.url.endswith(f'/v1/KEY_{ctx.project_id}')

    # Bob's token reaches Bob's account, where Alice's backup is not.
    bob = _driver(server, context=_context(keystone, users['bob']),
                  backup_swift_auth='per_user',
                  backup_swift_container=driver.conf.backup_swift_container)
    with pytest.raises(exception.BackupObjectNotFound):
        _restore(bob, backup, len(data))


def test_per_user_with_backup_swift_url(keystone_swift):
    keystone, server, users = keystone_swift
    ctx = _context(keystone, users['alice'])
    driver = _driver(server, context=ctx, backup_swift_auth='per_user',
                     backup_swift_url=f'{server.endpoint}/v1/KEY_')
    data = _pattern(MiB)
    backup = stored(b := ref(), driver.backup(b, VolumeFile(data)))
    assert sha(_restore(driver, backup, len(data))) == sha(data)
    driver.delete_backup(backup)


def test_single_user_with_keystone_v3(keystone_swift):
    keystone, server, users = keystone_swift
    alice = users['alice']
    driver = _driver(server, backup_swift_auth_url=keystone.auth_url,
                     backup_swift_auth_version='3', backup_swift_user=alice.name,
                     backup_swift_key=alice.password, backup_swift_project=alice.project_name,
                     backup_swift_user_domain='Default', backup_swift_project_domain='Default')
    data = _pattern(MiB)
    backup = stored(b := ref(), driver.backup(b, VolumeFile(data)))
    assert sha(_restore(driver, backup, len(data))) == sha(data)
    with pytest.raises(exception.BackupDriverException, match='not usable'):
        _driver(server, backup_swift_auth_url=keystone.auth_url,
                backup_swift_auth_version='3', backup_swift_user=alice.name,
                backup_swift_key='wrong', backup_swift_project=alice.project_name,
                backup_swift_user_domain='Default', backup_swift_project_domain='Default')


def _service_auth(keystone, server, ctx, service_user, *, send=True):
    """A per_user driver on the SERVICE_PREFIX accounts, with backup_swift_service_auth and
    *service_user*'s credentials in [service_user]."""
    driver = _driver(server, context=ctx, backup_swift_auth='per_user',
                     backup_swift_url=f'{server.endpoint}/v1/{swift_fixtures.SERVICE_PREFIX}',
                     backup_swift_service_auth=True)
    conf = driver.conf
    conf.register_opts(ks_loading.get_auth_plugin_conf_options('password'),
                       group='service_user')
    for name, value in {'send_service_user_token': send, 'auth_type': 'password',
                        'auth_url': keystone.auth_url, 'username': service_user.name,
                        'password': service_user.password,
                        'project_name': service_user.project_name,
                        'user_domain_name': 'Default',
                        'project_domain_name': 'Default'}.items():
        conf.set_override(name, value, group='service_user')
    return driver


def test_service_auth_sends_the_service_token_swift_demands(keystone_swift):
    """Swift's keystoneauth takes the SVC_ account only with an X-Service-Token of a user
    holding the `service` role: the backup and its restore pass with Cinder's service user,
    and are refused without the token or with a token lacking the role."""
    keystone, server, users = keystone_swift
    cinder = keystone.user('cinder', project_name='service', roles=('service',))
    ctx = _context(keystone, users['alice'])
    driver = _service_auth(keystone, server, ctx, cinder)
    data = _pattern(2 * MiB)
    backup = stored(b := ref(), driver.backup(b, VolumeFile(data)))
    assert sha(_restore(driver, backup, len(data))) == sha(data)
    assert driver.conn.url.endswith(f'/v1/SVC_{ctx.project_id}')

    unsent = _service_auth(keystone, server, ctx, cinder, send=False)
    with pytest.raises(exception.SwiftConnectionFailed, match='403'):
        _restore(unsent, backup, len(data))
    not_a_service = _service_auth(keystone, server, ctx, users['bob'])
    with pytest.raises(exception.SwiftConnectionFailed, match='403'):
        _restore(not_a_service, backup, len(data))
    driver.delete_backup(backup)


def test_service_auth_without_a_service_user_plugin_is_cinders_error(keystone_swift):
    keystone, server, users = keystone_swift
    driver = _driver(server, context=_context(keystone, users['alice']),
                     backup_swift_auth='per_user', backup_swift_service_auth=True,
                     backup_swift_url=f'{server.endpoint}/v1/{swift_fixtures.SERVICE_PREFIX}')
    driver.conf.set_override('send_service_user_token', True, group='service_user')
    with pytest.raises(exception.ServiceUserTokenNoAuth):
        driver.backup(ref(), VolumeFile(_pattern(MiB)))
