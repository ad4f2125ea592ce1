"""Backups in OpenStack Swift (cinderlike-backup), through python-swiftclient.

Cinder's options, layout and auth modes: `per_user` uses the request's token on
`backup_swift_url` + project (or the token's catalog), `single_user` logs in as
`backup_swift_user` (tempauth/auth v1, Keystone v2 or v3); `backup_swift_service_auth` adds
the [service_user] token (X-Service-Token) to every object request. Objects are named
`volume_<vol>/<YYYYmmddHHMMSS>/az_<az>_backup_<id>-00001`… in `backup_swift_container`.
"""

import hashlib
import threading

from oslo_config import cfg
from oslo_log import log as logging
from swiftclient import client as swift
from swiftclient import exceptions as swift_exc

from cinderlike import exception, service_auth
from cinderlike.drivers.backup import chunked

LOG = logging.getLogger(__name__)

DRIVER_OPTS = [
    cfg.URIOpt('backup_swift_url',
               help='Swift endpoint up to the account prefix (e.g. http://swift:8080/v1/AUTH_); '
                    'per_user auth appends the project id.'),
    cfg.URIOpt('backup_swift_auth_url',
               help='Auth endpoint for single_user (tempauth /auth/v1.0 or Keystone).'),
    cfg.StrOpt('swift_catalog_info', default='object-store:swift:publicURL',
               help='<service_type>:<service_name>:<endpoint_type> of Swift in the token\'s '
                    'catalog; used when backup_swift_url is unset.'),
    cfg.StrOpt('keystone_catalog_info', default='identity:Identity Service:publicURL',
               help='<service_type>:<service_name>:<endpoint_type> of Keystone in the '
                    'token\'s catalog; used when backup_swift_auth_url is unset.'),
    cfg.StrOpt('backup_swift_auth', default='per_user', choices=['per_user', 'single_user'],
               help='per_user: the requester\'s token; single_user: backup_swift_user\'s.'),
    cfg.StrOpt('backup_swift_auth_version', default='1',
               help='Auth version for single_user: 1 (tempauth), 2 or 3 (Keystone).'),
    cfg.StrOpt('backup_swift_tenant', help='Tenant (auth 2.0) for single_user.'),
    cfg.StrOpt('backup_swift_user_domain', help='User domain (auth 3) for single_user.'),
    cfg.StrOpt('backup_swift_project_domain', help='Project domain (auth 3) for single_user.'),
    cfg.StrOpt('backup_swift_project', help='Project (auth 3) for single_user.'),
    cfg.StrOpt('backup_swift_user', help='Swift user for single_user.'),
    cfg.StrOpt('backup_swift_key', secret=True, help='Key of backup_swift_user.'),
    cfg.StrOpt('backup_swift_container', default='volumebackups',
               help='Container of backups created without one.'),
    cfg.StrOpt('backup_swift_create_storage_policy',
               help='Storage policy of the containers this driver creates.'),
    cfg.IntOpt('backup_swift_object_size', default=52428800, min=1,
               help='Size in bytes of backup objects; a multiple of backup_swift_block_size. '
                    'One object is held in memory while it uploads.'),
    cfg.IntOpt('backup_swift_block_size', default=32768, min=1,
               help='Size in bytes of the blocks whose sha256 an incremental compares.'),
    cfg.IntOpt('backup_swift_retry_attempts', default=3, min=0,
               help='Retries of a failed Swift request.'),
    cfg.IntOpt('backup_swift_retry_backoff', default=2, min=0,
               help='Seconds before the first retry, doubled at each next one.'),
    cfg.BoolOpt('backup_swift_enable_progress_timer', default=True,
                help='Periodic backup.createprogress notifications for Swift backups.'),
    cfg.StrOpt('backup_swift_ca_cert_file', help='CA bundle to verify Swift\'s certificate.'),
    cfg.BoolOpt('backup_swift_auth_insecure', default=False,
                help='Do not verify Swift\'s TLS certificate.'),
    cfg.BoolOpt('backup_swift_service_auth', default=False,
                help='Send a X-Service-Token header with service auth credentials. If '
                     'enabled you also must set the service_user group and enable '
                     'send_service_user_token.'),
    cfg.StrOpt('backup_swift_region_name',
               help='Region of the catalog endpoints to use.'),
]


def _catalog_endpoint(catalog, info: str, option: str, region: str | None) -> str | None:
    """The URL of `<type>:<name>:<endpoint_type>` in a token's (v2-style) catalog."""
    try:
        service_type, _name, endpoint_type = info.split(':')
    except ValueError:
        raise exception.BackupDriverException(
            reason=f"Failed to parse the configuration option '{option}', must be in the "
                   'form <service_type>:<service_name>:<endpoint_type>') from None
    for entry in catalog or []:
        if entry.get('type') != service_type:
            continue
        for endpoint in entry.get('endpoints', []):
            if region is None or endpoint.get('region') == region:
                return endpoint.get(endpoint_type)
        return None
    return None


# Bytes swiftclient sends per write of an upload.
_SEND_SIZE = 1024 * 1024


class _Body:
    """An object's buffer as the file-like swiftclient streams from (and rewinds to retry),
    without copying the buffer."""

    def __init__(self, data):
        self._view = memoryview(data)
        self._pos = 0

    def read(self, size=-1) -> bytes:
        end = len(self._view) if size is None or size < 0 else self._pos + size
        chunk = self._view[self._pos:end].tobytes()
        self._pos += len(chunk)
        return chunk

    def seek(self, pos, whence=0) -> int:
        self._pos = pos if whence == 0 else self._pos + pos if whence == 1 else \
            len(self._view) + pos
        return self._pos

    def tell(self) -> int:
        return self._pos


class _Uploader:
    """Uploads closed objects in order, each in a thread of its own while the next object is
    assembled, so Swift's time overlaps reading and compressing; at most two objects are held.

    NOTE(buffer): an object is held whole (backup_swift_object_size plus what compression
    adds) so swiftclient can retry its upload, as Cinder does. The upload threads share one
    Connection of their own, used by one of them at a time.
    """

    def __init__(self, connect, headers):
        self._connect = connect
        self._headers = headers
        self._conn = None
        self._thread = None
        self._error = None

    def submit(self, container: str, name: str, data: bytearray) -> None:
        self.wait()
        self._thread = threading.Thread(target=self._run, args=(container, name, data),
                                        name=f'swift-upload-{name[-5:]}', daemon=True)
        self._thread.start()

    def wait(self) -> None:
        """Block until the upload in flight is done; raise what it failed with."""
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.join()
        error, self._error = self._error, None
        if error is not None:
            raise error

    def _run(self, container, name, data):
        try:
            if self._conn is None:
                self._conn = self._connect()
            md5 = hashlib.md5(data, usedforsecurity=False).hexdigest()
            # Swift checks the ETag against what it received and refuses a mismatch.
            etag = _call(self._conn.put_object, container, name, _Body(data),
                         content_length=len(data), etag=md5, chunk_size=_SEND_SIZE,
                         headers=self._headers())
            if etag != md5:
                raise exception.SwiftConnectionFailed(
                    reason=f'object {name}: Swift stored md5 {etag}, sent {md5}')
        except BaseException as exc:  # noqa: B036 - raised again by wait()
            self._error = exc


class _ObjectWriter:
    """One object, handed to the uploader when it is closed."""

    def __init__(self, uploader, container, name):
        self.uploader, self.container, self.name = uploader, container, name
        self._data = bytearray()

    def write(self, data):
        self._data += data

    def close(self):
        data, self._data = self._data, None
        self.uploader.submit(self.container, self.name, data)

    def abort(self):
        self._data = None


def _call(method, *args, **kwargs):
    """A swiftclient call, its transport errors as SwiftConnectionFailed."""
    try:
        return method(*args, **kwargs)
    except (OSError, swift_exc.ClientException) as exc:
        if isinstance(exc, swift_exc.ClientException) and exc.http_status == 404:
            raise
        raise exception.SwiftConnectionFailed(reason=str(exc)) from exc


class SwiftBackupDriver(chunked.ChunkedBackupDriver):
    """Backups as Swift objects."""

    SERVICE_NAME = 'cinder.backup.drivers.swift.SwiftBackupDriver'

    DRIVER_OPTS = DRIVER_OPTS

    def __init__(self, conf, *, context=None):
        super().__init__(conf, context=context)
        self._conn = None
        self._service_token = service_auth.ServiceToken(conf)
        self._uploader = _Uploader(self._connect, self._headers)

    @property
    def enable_progress_timer(self) -> bool:
        return self.conf.backup_swift_enable_progress_timer

    def for_context(self, context) -> 'SwiftBackupDriver':
        # NOTE(per_user): Swift is reached with the requester's token and catalog, so each
        # operation gets a driver of its own request, as Cinder's backup manager makes one.
        if self.conf.backup_swift_auth == 'per_user':
            return type(self)(self.conf, context=context)
        return self

    @property
    def chunk_size(self) -> int:
        return self.conf.backup_swift_object_size

    @property
    def sha_block_size(self) -> int:
        return self.conf.backup_swift_block_size

    @property
    def conn(self) -> swift.Connection:
        """The Connection of this driver (one thread uses it at a time)."""
        if self._conn is None:
            self._conn = self._connect()
        return self._conn

    def _headers(self, headers: dict | None = None) -> dict | None:
        """*headers* of an object request, with the service token when
        backup_swift_service_auth (Cinder's _headers). :raises ServiceUserTokenNoAuth:"""
        if not self.conf.backup_swift_service_auth:
            return headers
        token = self._service_token.get()
        return {**(headers or {}), 'X-Service-Token': token} if token else headers

    def _connect(self) -> swift.Connection:
        conf = self.conf
        common = {'retries': conf.backup_swift_retry_attempts,
                  'starting_backoff': conf.backup_swift_retry_backoff,
                  'insecure': conf.backup_swift_auth_insecure,
                  'cacert': conf.backup_swift_ca_cert_file}
        catalog = getattr(self.context, 'service_catalog', None)
        region = conf.backup_swift_region_name
        if conf.backup_swift_auth == 'single_user':
            if not conf.backup_swift_user:
                raise exception.BackupDriverException(
                    reason='single_user auth mode enabled, but backup_swift_user not set')
            auth_url = conf.backup_swift_auth_url or _catalog_endpoint(
                catalog, conf.keystone_catalog_info, 'keystone_catalog_info', region)
            if not auth_url:
                raise exception.BackupDriverException(reason=(
                    'Could not determine which Keystone endpoint to use. This can either be '
                    'set in the service catalog or with the option backup_swift_auth_url.'))
            options = {key: value for key, value in (
                ('user_domain_name', conf.backup_swift_user_domain),
                ('project_domain_name', conf.backup_swift_project_domain),
                ('project_name', conf.backup_swift_project),
                ('region_name', region)) if value is not None}
            return swift.Connection(authurl=auth_url, auth_version=conf.backup_swift_auth_version,
                                    tenant_name=conf.backup_swift_tenant,
                                    user=conf.backup_swift_user, key=conf.backup_swift_key,
                                    os_options=options, **common)
        if self.context is None or not self.context.auth_token:
            raise exception.BackupDriverException(
                reason='per_user auth needs the request\'s token')
        if conf.backup_swift_url:
            url = f'{conf.backup_swift_url}{self.context.project_id}'
        else:
            url = _catalog_endpoint(catalog, conf.swift_catalog_info, 'swift_catalog_info',
                                    region)
        if not url:
            raise exception.BackupDriverException(reason=(
                'Could not determine which Swift endpoint to use. This can either be set in '
                'the service catalog or with the option backup_swift_url.'))
        return swift.Connection(preauthurl=url, preauthtoken=self.context.auth_token, **common)

    def check_for_setup_error(self) -> None:
        """Cinder checks Swift answers at backup_swift_url; single_user also logs in."""
        super().check_for_setup_error()
        conf = self.conf
        try:
            if conf.backup_swift_auth == 'single_user':
                _call(self.conn.head_account)
            elif conf.backup_swift_url:
                probe = swift.Connection(preauthurl=conf.backup_swift_url,
                                         retries=conf.backup_swift_retry_attempts,
                                         insecure=conf.backup_swift_auth_insecure,
                                         cacert=conf.backup_swift_ca_cert_file)
                _call(probe.get_capabilities)
            else:
                LOG.warning('backup_swift_url is unset: Swift comes from each token\'s '
                            'catalog and cannot be checked at start.')
        except (swift_exc.ClientException, exception.SwiftConnectionFailed) as exc:
            raise exception.BackupDriverException(
                reason=f'Swift is not usable: {exc}') from exc

    def default_container(self, backup) -> str:
        return self.conf.backup_swift_container

    def object_prefix(self, backup) -> str:
        stamp = backup.created_at.strftime('%Y%m%d%H%M%S')
        zone = backup.availability_zone or self.conf.storage_availability_zone
        return f'volume_{backup.volume_id}/{stamp}/az_{zone}_backup_{backup.id}'

    def put_container(self, container: str) -> None:
        try:
            _call(self.conn.head_container, container, headers=self._headers())
            return
        except swift_exc.ClientException:
            pass   # 404: _call raised the others as SwiftConnectionFailed
        if not self.conf.backup_create_containers:
            raise exception.SwiftConnectionFailed(
                reason=f'container {container} does not exist and backup_create_containers '
                       'is False')
        policy = self.conf.backup_swift_create_storage_policy
        _call(self.conn.put_container, container,
              headers=self._headers({'X-Storage-Policy': policy} if policy else None))

    def list_objects(self, container: str, prefix: str) -> list[str]:
        try:
            _headers, listing = _call(self.conn.get_container, container, prefix=prefix,
                                      full_listing=True, headers=self._headers())
        except swift_exc.ClientException:
            return []
        return [entry['name'] for entry in listing]

    def open_object(self, container: str, name: str):
        return _ObjectWriter(self._uploader, container, name)

    def objects_stored(self) -> None:
        self._uploader.wait()

    def read_object(self, container: str, name: str):
        try:
            _headers, body = _call(self.conn.get_object, container, name,
                                   resp_chunk_size=self.piece_size, headers=self._headers())
        except swift_exc.ClientException:
            raise exception.BackupObjectNotFound(name=name, container=container) from None
        return _pieces(body, name)

    def delete_object(self, container: str, name: str) -> None:
        try:
            _call(self.conn.delete_object, container, name, headers=self._headers())
        except swift_exc.ClientException:
            pass   # already gone


def _pieces(body, name):
    """The response body's pieces; a connection lost mid-way is SwiftConnectionFailed."""
    try:
        yield from body
    except (OSError, swift_exc.ClientException) as exc:
        raise exception.SwiftConnectionFailed(reason=f'reading {name}: {exc}') from exc
    finally:
        close = getattr(body, 'close', None)
        if close is not None:
            close()
