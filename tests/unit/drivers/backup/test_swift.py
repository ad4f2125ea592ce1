"""drivers/backup/swift.py without a Swift: how the endpoint and credentials are chosen.
The data path runs against a real Swift in tests/functional/test_backup_swift.py."""

import pytest

from cinderlike import conf as cl_conf
from cinderlike import context as cl_context
from cinderlike import exception
from cinderlike.drivers.backup import base
from cinderlike.drivers.backup import swift as swift_driver
from tests.unit.drivers.backup.conftest import ref

CATALOG = [{'type': 'object-store', 'name': 'swift',
            'endpoints': [{'region': 'r1', 'publicURL': 'http://s1/v1/AUTH_p',
                           'internalURL': 'http://i1/v1/AUTH_p'},
                          {'region': 'r2', 'publicURL': 'http://s2/v1/AUTH_p'}]},
           {'type': 'identity', 'endpoints': [{'region': 'r1', 'publicURL': 'http://ks/v3'}]}]


def _driver(context=None, **options):
    conf = cl_conf.new_conf()
    conf.register_opts(swift_driver.DRIVER_OPTS)
    conf([])
    for name, value in options.items():
        conf.set_override(name, value)
    return swift_driver.SwiftBackupDriver(conf, context=context)


def _ctx(catalog=None):
    return cl_context.RequestContext(auth_token='tok', project_id='p', user_id='u',
                                     service_catalog=catalog)


def test_cinder_defaults():
    driver = _driver()
    assert (driver.chunk_size, driver.sha_block_size) == (52428800, 32768)
    assert driver.default_container(ref()) == 'volumebackups'
    assert driver.conf.backup_swift_auth == 'per_user'
    assert driver.SUPPORTS_FORCE_DELETE
    driver.conf.set_override('backup_swift_enable_progress_timer', False)
    assert not driver.enable_progress_timer
    assert base.driver_class('cinder.backup.drivers.swift.SwiftBackupDriver') is \
        swift_driver.SwiftBackupDriver
    assert base.driver_class(driver.conf.backup_driver) is swift_driver.SwiftBackupDriver


def test_prefix_names_the_zone():
    backup = ref('vol-9')
    assert _driver().object_prefix(backup) == \
        f'volume_vol-9/20261201114442/az_nova_backup_{backup.id}'


def test_per_user_url_from_option_or_catalog():
    assert _driver(_ctx(), backup_swift_url='http://sw/v1/AUTH_').conn.url == \
        'http://sw/v1/AUTH_p'
    assert _driver(_ctx(CATALOG), backup_swift_region_name='r2').conn.url == \
        'http://s2/v1/AUTH_p'
    assert _driver(_ctx(CATALOG),
                   swift_catalog_info='object-store:swift:internalURL').conn.url == \
        'http://i1/v1/AUTH_p'
    assert _driver(_ctx(CATALOG)).conn.token == 'tok'


@pytest.mark.parametrize('context,options,message', [
    (None, {}, "request's token"),
    (_ctx(), {}, 'Could not determine which Swift endpoint'),
    (_ctx(CATALOG), {'swift_catalog_info': 'object-store'}, "'swift_catalog_info'"),
    (_ctx(), {'backup_swift_auth': 'single_user'}, 'backup_swift_user not set'),
    (_ctx(), {'backup_swift_auth': 'single_user', 'backup_swift_user': 'u'},
     'Could not determine which Keystone endpoint'),
])
def test_missing_endpoint_or_credentials(context, options, message):
    driver = _driver(context, **options)
    with pytest.raises(exception.BackupDriverException, match=message):
        driver.backup(ref(), None)


def test_single_user_takes_keystone_from_the_catalog():
    conn = _driver(_ctx(CATALOG), backup_swift_auth='single_user', backup_swift_user='u',
                   backup_swift_key='k', backup_swift_auth_version='3',
                   backup_swift_project='p', backup_swift_user_domain='Default').conn
    assert conn.authurl == 'http://ks/v3'
    assert conn.os_options['project_name'] == 'p'
    assert conn.os_options['user_domain_name'] == 'Default'


class _Conn:
    """Stands in for swiftclient's Connection: records puts, answers an ETag."""

    def __init__(self, etag=None):
        self.puts, self.etag = [], etag

    def put_object(self, container, name, body, *, content_length, etag, chunk_size,
                   headers):
        assert headers == {'X-Service-Token': 'svc'}
        data = body.read(3) + body.read()
        body.seek(0)
        assert body.read() == data and body.tell() == content_length == len(data)
        self.puts.append((container, name, data, etag))
        return self.etag or etag


def test_uploads_run_in_order_and_their_failures_surface():
    conn = _Conn()
    uploader = swift_driver._Uploader(lambda: conn, lambda: {'X-Service-Token': 'svc'})
    for number in range(3):
        uploader.submit('c', f'o-{number}', bytearray(b'xyzw' * number))
    uploader.wait()
    assert [(name, data) for _, name, data, _ in conn.puts] == [
        ('o-0', b''), ('o-1', b'xyzw'), ('o-2', b'xyzw' * 2)]

    liar = swift_driver._Uploader(lambda: _Conn(etag='0' * 32),
                                 lambda: {'X-Service-Token': 'svc'})
    liar.submit('c', 'o', bytearray(b'data'))
    with pytest.raises(exception.SwiftConnectionFailed, match='Swift stored md5'):
        liar.wait()
    liar.wait()   # the failure is reported once


def test_per_user_operations_get_a_driver_of_their_own_request():
    daemon = _driver(backup_swift_url='http://sw/v1/AUTH_')   # the service's: no token
    mine = daemon.for_context(_ctx())
    assert mine is not daemon and mine.context.auth_token == 'tok'
    assert mine.conn.url == 'http://sw/v1/AUTH_p'
    single = _driver(backup_swift_auth='single_user')
    assert single.for_context(_ctx()) is single
